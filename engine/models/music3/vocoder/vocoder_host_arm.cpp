#include "engine/models/music3/vocoder/vocoder_host_arm.h"

#include <stdexcept>
#include <string>

namespace music3::vocoder {

namespace {
constexpr int kStreams = 2;
}

Activation VocoderHostArm::decode_stream(const bf16* stream_latents, int64_t length) const {
  const auto& cfg = w_.cfg;
  const int k = VocoderConfig::kKernel;
  Activation x{cfg.stream_channels(), length,
               std::vector<bf16>(stream_latents, stream_latents + static_cast<size_t>(cfg.stream_channels() * length))};
  x = conv1d(x, w_.dec_in_proj, 1, 0, threads_);
  x = conv1d(x, w_.conv_in, 1, k / 2, threads_);
  for (const auto& blk : w_.blocks) {
    snake_inplace(x, blk.alpha, threads_);
    x = conv_transpose1d(x, blk.up, blk.stride, transposed_padding(blk.stride), threads_);
    for (const auto& unit : blk.units) {
      Activation r = x;
      snake_inplace(r, unit.alpha1, threads_);
      r = conv1d(r, unit.conv1, unit.dilation, unit.dilation * (k - 1) / 2, threads_);
      snake_inplace(r, unit.alpha2, threads_);
      r = conv1d(r, unit.conv2, 1, 0, threads_);
      add_inplace(x, r);  // the residual unit's identity
    }
  }
  snake_inplace(x, w_.alpha_out, threads_);
  x = conv1d(x, w_.conv_out, 1, k / 2, threads_);
  tanh_inplace(x);
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

}  // namespace music3::vocoder
