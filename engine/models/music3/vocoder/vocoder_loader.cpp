#include "engine/core/bf16_from_bytes.h"
#include "engine/models/music3/vocoder/vocoder_loader.h"

#include <filesystem>
#include <map>
#include <set>
#include <stdexcept>

#include "engine/io/component_config.h"
#include "engine/io/safetensors.h"
#include "engine/models/music3/vocoder/weight_norm.h"

namespace music3::vocoder {
namespace fs = std::filesystem;

namespace {
// The dimension torch's weight_norm(module) keeps: 0, for Conv1d ([out][in][k]) and ConvTranspose1d ([in][out][k]).
constexpr int kConvNormDim = 0;
constexpr int kTransposedNormDim = 0;

std::string component_dir(const std::string& dir) {
  if (fs::exists(fs::path(dir) / "config.json")) return dir;
  if (fs::exists(fs::path(dir) / "vocoder" / "config.json")) return (fs::path(dir) / "vocoder").string();
  throw std::runtime_error("checkpoint '" + dir + "': no config.json here nor in vocoder/");
}

class Reader {
 public:
  Reader(const io::SafetensorsFile& file, const std::map<std::string, Shape>& expected)
      : file_(file), expected_(expected) {}

  std::vector<bf16> read(const std::string& name) {
    const Shape& want = expected_.at(name);
    if (!file_.has(name)) throw std::runtime_error(file_.path() + ": missing tensor '" + name + "'");
    Tensor src = file_.tensor(name);
    if (!(src.shape == want)) {
      std::string what = "has shape " + src.shape.str() + ", expected " + want.str();
      if (src.shape.rank == 3 && want.rank == 3 && src.shape[0] == want[0] && src.shape[1] == want[1])
        what = "has kernel size " + std::to_string(src.shape[2]) + ", expected " + std::to_string(want[2]) + " (shape " +
               src.shape.str() + ", expected " + want.str() + ")";
      throw std::runtime_error(file_.path() + ": tensor '" + name + "' " + what);
    }
    std::vector<bf16> out(static_cast<size_t>(src.numel()));
    if (src.dtype == DType::BF16) {
      bf16_from_bf16_bytes(src.data, src.numel(), out.data());
    } else if (src.dtype == DType::F32) {
      bf16_from_f32_bytes(src.data, src.numel(), out.data());
    } else {
      throw std::runtime_error(file_.path() + ": tensor '" + name + "' has dtype " + std::string(dtype_name(src.dtype)) +
                               ", expected BF16 (or F32, rounded to bf16)");
    }
    if (const int64_t bad = first_nonfinite(out.data(), int64_t(out.size())); bad >= 0)
      throw std::runtime_error(file_.path() + ": tensor '" + name + "' has a non-finite value at element " +
                               std::to_string(bad));
    ++read_;
    return out;
  }

  // A weight-normed conv: both halves of the pair must be present before either is read.
  Conv wn_conv(const std::string& prefix, bool transposed) {
    const std::string g = prefix + ".weight_g", v = prefix + ".weight_v";
    if (file_.has(g) != file_.has(v))
      throw std::runtime_error(file_.path() + ": weight-normed '" + prefix + "' has " + (file_.has(g) ? g : v) +
                               " without its " + (file_.has(g) ? "weight_v" : "weight_g") + " (missing tensor '" +
                               (file_.has(g) ? v : g) + "')");
    const Shape s = expected_.at(v);
    Conv c;
    c.transposed = transposed;
    c.kernel = static_cast<int>(s[2]);
    c.in = static_cast<int>(transposed ? s[0] : s[1]);
    c.out = static_cast<int>(transposed ? s[1] : s[0]);
    c.weight = fold_weight_norm(read(g), read(v), s[0], s[1], s[2], transposed ? kTransposedNormDim : kConvNormDim,
                                file_.path() + ": '" + prefix + "'");
    c.bias = read(prefix + ".bias");
    ++folded_;
    return c;
  }

  size_t read_count() const { return read_; }
  size_t folded() const { return folded_; }

 private:
  const io::SafetensorsFile& file_;
  const std::map<std::string, Shape>& expected_;
  size_t read_ = 0, folded_ = 0;
};
}  // namespace

VocoderWeights load_vocoder_checkpoint(const std::string& dir, LoadReport* report_out) {
  const std::string comp = component_dir(dir);
  VocoderWeights w;
  w.cfg = VocoderConfig::from_component_config(io::ComponentConfig((fs::path(comp) / "config.json").string()));
  const std::string path = (fs::path(comp) / "diffusion_pytorch_model.safetensors").string();
  io::SafetensorsFile file(path);
  std::map<std::string, Shape> expected;
  for (const auto& spec : expected_tensors(w.cfg)) expected[spec.name] = spec.shape;
  for (const auto& name : file.names())
    if (!expected.count(name)) throw std::runtime_error(path + ": unexpected tensor '" + name + "'");

  Reader r(file, expected);
  const auto& cfg = w.cfg;
  w.dec_in_proj.out = cfg.input_dim;
  w.dec_in_proj.in = cfg.stream_channels();
  w.dec_in_proj.kernel = 1;
  w.dec_in_proj.weight = r.read("dec_in_proj.weight");
  w.dec_in_proj.bias = r.read("dec_in_proj.bias");
  w.conv_in = r.wn_conv("conv_in", false);
  for (int i = 0; i < cfg.blocks(); ++i) {
    const std::string b = "blocks." + std::to_string(i);
    UpBlock blk;
    blk.stride = cfg.ratios[static_cast<size_t>(i)];
    blk.alpha = r.read(b + ".snake1.alpha");
    blk.up = r.wn_conv(b + ".conv_t1", true);
    for (int u = 0; u < 3; ++u) {
      const std::string p = b + ".res_unit" + std::to_string(u + 1);
      auto& unit = blk.units[u];
      unit.dilation = VocoderConfig::kDilations[u];
      unit.alpha1 = r.read(p + ".snake1.alpha");
      unit.conv1 = r.wn_conv(p + ".conv1", false);
      unit.alpha2 = r.read(p + ".snake2.alpha");
      unit.conv2 = r.wn_conv(p + ".conv2", false);
    }
    w.blocks.push_back(std::move(blk));
  }
  w.alpha_out = r.read("snake_out.alpha");
  w.conv_out = r.wn_conv("conv_out", false);

  if (report_out) {
    report_out->weights_path = path;
    report_out->weights_sha256 = file.sha256();
    report_out->tensors = r.read_count();
    report_out->folded = r.folded();
  }
  return w;
}

}  // namespace music3::vocoder
