#include "engine/models/music3/acoustic/acoustic_stage.h"

#include <utility>

#include "engine/models/music3/acoustic/acoustic_guidance.h"
#include "engine/models/music3/acoustic/acoustic_scheduler.h"
#include "engine/models/music3/acoustic/acoustic_windows.h"

namespace music3::acoustic {

AcousticError::AcousticError(std::string kind, const std::string& message)
    : std::runtime_error(kind + ": " + message), kind_(std::move(kind)) {}

namespace {

void expect_size(const std::vector<bf16>& v, int64_t expected, const std::string& what) {
  if (static_cast<int64_t>(v.size()) != expected)
    throw AcousticError("arm_output", what + " returned " + std::to_string(v.size()) + " values, expected " +
                                          std::to_string(expected));
}

struct Carry {
  int64_t length = 0;          // carried latent columns
  std::vector<bf16> latents;   // [channels][length]
  std::vector<bf16> condition; // [length][cond_channels]
};

}  // namespace

AcousticResult run_acoustic(ConditionEncoderArm& encoder, DitArm& dit, const bf16* frame_hiddens, int64_t frames,
                            int64_t frame_width, const NoiseSource& noise, const AcousticOptions& options) {
  const int64_t channels = dit.latent_channels(), cond_channels = dit.cond_channels();
  if (encoder.cond_channels() != cond_channels)
    throw AcousticError("geometry", "the condition encoder gives " + std::to_string(encoder.cond_channels()) +
                                        " channels, the DiT takes " + std::to_string(cond_channels));
  if (frame_width < 1 || channels < 1)
    throw AcousticError("geometry", "frame width " + std::to_string(frame_width) + ", latent channels " +
                                        std::to_string(channels));
  const std::vector<int64_t> starts = window_starts(frames);
  const std::vector<float> sigmas = flow_sigmas(options.steps);
  const int64_t windows = static_cast<int64_t>(starts.size());

  AcousticResult result;
  result.channels = channels;
  Carry carry;
  bool carrying = false;
  for (int64_t k = 0; k < windows; ++k) {
    AcousticWindow w;
    w.start = starts[static_cast<size_t>(k)];
    w.frames = window_frames(w.start, frames);
    w.length = latent_length(w.frames);
    const int64_t L = w.length;
    std::vector<bf16> cond = encoder.encode(frame_hiddens + w.start * frame_width, w.frames, L);
    expect_size(cond, L * cond_channels, "the condition encoder");
    w.overlap = carrying ? overlap_length(carry.length, L) : 0;
    const int64_t ov = w.overlap;
    if (ov > 0) splice_rows(cond.data(), carry.condition.data(), ov, cond_channels);

    std::vector<bf16> x = noise.window_noise(k, channels, L);
    std::vector<bf16> noise_prompt(static_cast<size_t>(channels * ov));
    splice_columns(noise_prompt.data(), ov, x.data(), L, ov, channels);

    std::vector<bf16> v(x.size());
    for (int i = 0; i < options.steps; ++i) {
      const bf16 t = timestep(sigmas, i);
      if (ov > 0) renoise_overlap(x.data(), L, noise_prompt.data(), carry.latents.data(), carry.length, ov, channels, t);
      const VelocityPair pair = dit.velocities(x.data(), L, t, cond.data());
      expect_size(pair.conditional, channels * L, "the DiT (conditional branch)");
      expect_size(pair.unconditional, channels * L, "the DiT (unconditional branch)");
      guide(pair.conditional.data(), pair.unconditional.data(), v.data(), channels * L);
      euler_step(x.data(), v.data(), channels * L, euler_dt(sigmas, i));
      if (options.progress) options.progress(k, windows, i, options.steps);
    }
    if (ov > 0) splice_columns(x.data(), L, carry.latents.data(), carry.length, ov, channels);

    const Span span = carry_span(L);
    carry.length = span.size();
    carry.latents.assign(static_cast<size_t>(channels * carry.length), bf16{});
    for (int64_t c = 0; c < channels; ++c)
      for (int64_t j = 0; j < carry.length; ++j)
        carry.latents[static_cast<size_t>(c * carry.length + j)] = x[static_cast<size_t>(c * L + span.begin + j)];
    carry.condition.assign(cond.begin() + span.begin * cond_channels, cond.begin() + span.end * cond_channels);
    carrying = true;

    w.latents = std::move(x);
    result.windows.push_back(std::move(w));
  }
  return result;
}

}  // namespace music3::acoustic
