#include "engine/models/music3/depth/depth_frame_files.h"

#include <cstring>
#include <stdexcept>

#include "engine/io/safetensors.h"
#include "engine/models/music3/depth/depth_synthetic.h"

namespace music3::depth {
namespace {

template <class T>
std::vector<T> copy_out(const Tensor& t) {
  std::vector<T> v(static_cast<size_t>(t.numel()));
  std::memcpy(v.data(), t.data, t.bytes());
  return v;
}

int64_t leading_frames(const io::SafetensorsFile& f, const std::string& name) {
  if (!f.has(name)) throw std::runtime_error(f.path() + ": missing tensor '" + name + "'");
  const Tensor t = f.tensor(name);
  if (t.shape.rank < 1 || t.shape[0] < 1)
    throw std::runtime_error(f.path() + ": tensor '" + name + "' has shape " + t.shape.str() + ", expected [F,...] with F >= 1");
  return t.shape[0];
}
}  // namespace

DepthFrameInputs read_frame_inputs(const std::string& path, const DepthConfig& cfg) {
  io::SafetensorsFile f(path);
  DepthFrameInputs in;
  in.frames = leading_frames(f, "last_hidden");
  in.last_hidden = copy_out<bf16>(f.require("last_hidden", DType::BF16, {in.frames, 2, cfg.hidden}));
  in.c0_embedding = copy_out<bf16>(f.require("c0_embedding", DType::BF16, {in.frames, cfg.hidden}));
  f.check_finite("last_hidden");
  f.check_finite("c0_embedding");
  return in;
}

std::vector<float> read_exp_draws(const std::string& path, const DepthConfig& cfg, int64_t frames) {
  io::SafetensorsFile f(path);
  const int64_t have = leading_frames(f, "exp_draws");
  if (have < frames)
    throw std::runtime_error(path + ": tensor 'exp_draws' holds " + std::to_string(have) + " frames, " +
                             std::to_string(frames) + " are needed");
  auto draws = copy_out<float>(f.require("exp_draws", DType::F32, {have, cfg.steps(), cfg.vocab}));
  f.check_finite("exp_draws");
  for (size_t i = 0; i < draws.size(); ++i)
    if (!(draws[i] > 0.0f))
      throw std::runtime_error(path + ": tensor 'exp_draws' element " + std::to_string(i) +
                               " is not positive (an Exp(1) draw must be > 0)");
  draws.resize(static_cast<size_t>(frames * cfg.steps() * cfg.vocab));
  return draws;
}

DepthFrameInputs synthetic_inputs(const DepthConfig& cfg, uint64_t seed, int64_t frames) {
  DepthFrameInputs in;
  in.frames = frames;
  const size_t H = static_cast<size_t>(cfg.hidden);
  in.last_hidden.resize(static_cast<size_t>(frames) * 2 * H);
  in.c0_embedding.resize(static_cast<size_t>(frames) * H);
  for (int64_t f = 0; f < frames; ++f)
    synthetic_frame_inputs(cfg, seed, static_cast<uint64_t>(f), in.last_hidden.data() + size_t(f) * 2 * H,
                           in.c0_embedding.data() + size_t(f) * H);
  return in;
}

void write_depth_dump(const std::string& path, const DepthConfig& cfg, const std::vector<FrameResult>& frames) {
  const int64_t F = static_cast<int64_t>(frames.size()), S = cfg.steps(), H = cfg.hidden;
  std::vector<int32_t> codes;
  std::vector<bf16> hidden;
  for (const auto& r : frames) {
    codes.insert(codes.end(), r.codes.begin(), r.codes.end());
    hidden.insert(hidden.end(), r.hidden.begin(), r.hidden.end());
  }
  io::write_safetensors(path,
                        {{"codes", DType::I32, {F, S}, codes.data(), codes.size() * sizeof(int32_t)},
                         {"hidden", DType::BF16, {F, S, H}, hidden.data(), hidden.size() * sizeof(bf16)}},
                        {{"producer", "music3 depth"}});
}

}  // namespace music3::depth
