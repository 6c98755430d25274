#include "engine/models/music3/vocoder/vocoder_host_arm.h"

#include <stdexcept>
#include <string>

namespace music3::vocoder {

namespace {
constexpr int kStreams = 2;
}

Activation VocoderHostArm::apply(const Stage& stage, Activation x) const {
  const int k = VocoderConfig::kKernel;
  using K = Stage::Kind;
  switch (stage.kind) {
    case K::DecInProj: return conv1d(x, w_.dec_in_proj, 1, 0, threads_);
    case K::ConvIn: return conv1d(x, w_.conv_in, 1, k / 2, threads_);
    case K::BlockSnake: snake_inplace(x, w_.blocks[stage.block].alpha, threads_); return x;
    case K::BlockUp: {
      const auto& blk = w_.blocks[stage.block];
      return conv_transpose1d(x, blk.up, blk.stride, transposed_padding(blk.stride), threads_);
    }
    case K::ResidualUnit: {
      const auto& unit = w_.blocks[stage.block].units[stage.unit];
      Activation r = x;
      snake_inplace(r, unit.alpha1, threads_);
      r = conv1d(r, unit.conv1, unit.dilation, unit.dilation * (k - 1) / 2, threads_);
      snake_inplace(r, unit.alpha2, threads_);
      r = conv1d(r, unit.conv2, 1, 0, threads_);
      add_inplace(x, r);  // the residual unit's identity
      return x;
    }
    case K::SnakeOut: snake_inplace(x, w_.alpha_out, threads_); return x;
    case K::ConvOut: return conv1d(x, w_.conv_out, 1, k / 2, threads_);
    case K::Tanh: tanh_inplace(x); return x;
  }
  throw std::logic_error("vocoder host arm: unknown stage " + stage.name());
}

Activation VocoderHostArm::decode_stream(const bf16* stream_latents, int64_t length) const {
  const auto& cfg = w_.cfg;
  Activation x{cfg.stream_channels(), length,
               std::vector<bf16>(stream_latents, stream_latents + static_cast<size_t>(cfg.stream_channels() * length))};
  for (const Stage& s : vocoder_stages(cfg)) x = apply(s, std::move(x));
  return x;
}

Waveform VocoderHostArm::decode(const bf16* latents, int64_t length) {
  if (length <= 0) throw std::invalid_argument("vocoder: a window needs at least one latent, got " + std::to_string(length));
  const size_t stream = static_cast<size_t>(w_.cfg.stream_channels()) * static_cast<size_t>(length);
  Waveform out;
  out.samples = w_.cfg.output_length(length);
  out.data.reserve(kStreams * static_cast<size_t>(out.samples));
  for (int s = 0; s < kStreams; ++s) {
    const Activation y = decode_stream(latents + s * stream, length);
    if (y.time != out.samples) throw std::logic_error("vocoder: stream length differs from output_length()");
    out.data.insert(out.data.end(), y.data.begin(), y.data.end());
  }
  ++forwards_;
  return out;
}

StageTensor VocoderHostArm::run_stage(const Stage& stage, const StageTensor& in) {
  const size_t stream = static_cast<size_t>(in.channels) * static_cast<size_t>(in.time);
  if (in.time <= 0 || in.data.size() != kStreams * stream)
    throw std::invalid_argument("vocoder stage " + stage.name() + ": input holds " + std::to_string(in.data.size()) +
                                " values, not 2 x " + std::to_string(in.channels) + " x " + std::to_string(in.time));
  StageTensor out;
  for (int s = 0; s < kStreams; ++s) {
    Activation x{in.channels, in.time, std::vector<bf16>(in.data.begin() + s * stream, in.data.begin() + (s + 1) * stream)};
    x = apply(stage, std::move(x));
    out.channels = x.channels, out.time = x.time;
    out.data.insert(out.data.end(), x.data.begin(), x.data.end());
  }
  return out;
}

}  // namespace music3::vocoder
