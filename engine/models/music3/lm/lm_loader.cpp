#include "engine/core/bf16_from_bytes.h"
#include "engine/models/music3/lm/lm_loader.h"

#include <cstdint>
#include <cstring>
#include <filesystem>
#include <map>
#include <stdexcept>

#include "engine/io/safetensors_set.h"
#include "engine/models/music3/lm/lm_ids.h"

namespace music3::lm {
namespace fs = std::filesystem;

namespace {

std::string component_dir(const std::string& dir) {
  if (fs::exists(fs::path(dir) / "config.json")) return dir;
  if (fs::exists(fs::path(dir) / "language_model" / "config.json")) return (fs::path(dir) / "language_model").string();
  throw std::runtime_error("checkpoint '" + dir + "': no config.json here nor in language_model/");
}

// Rows [first, first + count) of tensor `name` ([rows, width] or 1-D when rows == 0)
// as bf16: a view of the mapping, or an owned copy (F32 rounded, unaligned bf16).
HostTensor take_rows(const io::SafetensorsSet& set, const std::string& name, const Shape& expected, int64_t first,
                     int64_t count, LmLoadReport& report) {
  const io::SafetensorsFile& file = set.file_of(name);
  const Tensor src = file.tensor(name);
  if (!(src.shape == expected))
    throw std::runtime_error(file.path() + ": tensor '" + name + "' has shape " + src.shape.str() + ", expected " +
                             expected.str());
  const int64_t width = expected.rank == 2 ? expected[1] : expected[0];
  const Shape shape = expected.rank == 2 ? Shape{count, width} : expected;
  const int64_t n = shape.numel(), offset = first * width;
  HostTensor out;
  if (src.dtype == DType::BF16 && reinterpret_cast<uintptr_t>(src.data) % alignof(bf16) == 0) {
    out = HostTensor::mapped(shape, src.as<const bf16>() + offset, set.keeper());
  } else if (src.dtype == DType::BF16) {
    out = HostTensor(shape);
    std::memcpy(out.mutable_ptr(), src.as<const unsigned char>() + offset * 2, size_t(n) * 2);
  } else if (src.dtype == DType::F32) {
    out = HostTensor(shape);
    bf16* d = out.mutable_ptr();
    bf16_from_f32_bytes(src.as<const unsigned char>() + offset * 4, n, d);
    report.converted.push_back(name);
  } else {
    throw std::runtime_error(file.path() + ": tensor '" + name + "' has dtype " + std::string(dtype_name(src.dtype)) +
                             ", expected BF16 (or F32, converted)");
  }
  if (const int64_t bad = first_nonfinite(out.ptr(), n); bad >= 0)
    throw std::runtime_error(file.path() + ": tensor '" + name + "' has a non-finite value at element " +
                             std::to_string(offset + bad));
  return out;
}

}  // namespace

LmWeights load_lm_checkpoint(const std::string& dir, LmLoadReport* report_out) {
  const std::string comp = component_dir(dir);
  LmWeights w;
  w.cfg = LmConfig::from_file((fs::path(comp) / "config.json").string());
  const io::SafetensorsSet set = io::SafetensorsSet::open(comp, "model");
  LmLoadReport report;
  report.index_path = set.path();
  report.sha256 = set.sha256();
  report.shards = set.files().size();
  std::map<std::string, Shape> expected;
  for (const auto& spec : LmWeights::expected_tensors(w.cfg)) {
    if (!set.has(spec.name)) throw std::runtime_error(set.path() + ": missing tensor '" + spec.name + "'");
    expected[spec.name] = spec.shape;
  }
  for (const auto& name : set.names())
    if (!expected.count(name)) throw std::runtime_error(set.path() + ": unexpected tensor '" + name + "'");
  auto whole = [&](const std::string& name) {
    const Shape& s = expected.at(name);
    return take_rows(set, name, s, 0, s.rank == 2 ? s[0] : 0, report);
  };
  w.embed = whole("model.embed_tokens.weight");
  w.norm = whole("model.norm.weight");
  w.head_eos = take_rows(set, "lm_head.weight", expected.at("lm_head.weight"), kAudioEndId, 1, report);
  w.head_codes = take_rows(set, "lm_head.weight", expected.at("lm_head.weight"), kCodeOffset, kSemanticVocab, report);
  w.layers.resize(size_t(w.cfg.layers));
  for (int l = 0; l < w.cfg.layers; ++l) {
    const std::string p = "model.layers." + std::to_string(l) + ".";
    auto& L = w.layers[size_t(l)];
    L.input_norm = whole(p + "input_layernorm.weight");
    L.post_norm = whole(p + "post_attention_layernorm.weight");
    L.q_norm = whole(p + "self_attn.q_norm.weight");
    L.k_norm = whole(p + "self_attn.k_norm.weight");
    L.wq = whole(p + "self_attn.q_proj.weight");
    L.wk = whole(p + "self_attn.k_proj.weight");
    L.wv = whole(p + "self_attn.v_proj.weight");
    L.wo = whole(p + "self_attn.o_proj.weight");
    L.w_gate = whole(p + "mlp.gate_proj.weight");
    L.w_up = whole(p + "mlp.up_proj.weight");
    L.w_down = whole(p + "mlp.down_proj.weight");
  }
  if (report_out) *report_out = report;
  return w;
}

}  // namespace music3::lm
