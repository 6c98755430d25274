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

// The steps on the host over the arm's velocities(): x [channels][L] updated in place.
void host_steps(DitArm& dit, std::vector<bf16>& x, const WindowSteps& w) {
  const int64_t channels = dit.latent_channels(), L = w.length, ov = w.overlap;
  const std::vector<float>& sigmas = *w.sigmas;
  const int steps = static_cast<int>(sigmas.size()) - 1;
  std::vector<bf16> v(x.size());
  for (int i = 0; i < steps; ++i) {
    const bf16 t = timestep(sigmas, i);
    if (ov > 0) renoise_overlap(x.data(), L, w.noise_prompt, w.carried, w.carried_length, ov, channels, t);
    const VelocityPair pair = dit.velocities(x.data(), L, t, w.cond);
    expect_size(pair.conditional, channels * L, "the DiT (conditional branch)");
    expect_size(pair.unconditional, channels * L, "the DiT (unconditional branch)");
    guide(pair.conditional.data(), pair.unconditional.data(), v.data(), channels * L);
    euler_step(x.data(), v.data(), channels * L, euler_dt(sigmas, i));
    if (w.after_step) w.after_step(i);
  }
}

}  // namespace

AcousticWindowLoop::AcousticWindowLoop(ConditionEncoderArm& encoder, DitArm& dit, int64_t frame_width,
                                       const NoiseSource& noise, AcousticOptions options)
    : encoder_(encoder),
      dit_(dit),
      noise_(noise),
      options_(std::move(options)),
      sigmas_(flow_sigmas(options_.steps)),
      channels_(dit.latent_channels()),
      cond_channels_(dit.cond_channels()) {
  const int64_t cond_channels = cond_channels_;
  if (encoder.cond_channels() != cond_channels)
    throw AcousticError("geometry", "the condition encoder gives " + std::to_string(encoder.cond_channels()) +
                                        " channels, the DiT takes " + std::to_string(cond_channels));
  if (frame_width < 1 || channels_ < 1)
    throw AcousticError("geometry", "frame width " + std::to_string(frame_width) + ", latent channels " +
                                        std::to_string(channels_));
}

AcousticWindow AcousticWindowLoop::run_window(int64_t start, const bf16* hiddens, int64_t n, int64_t windows) {
  const int64_t k = next_, channels = channels_, cond_channels = cond_channels_;
  Carry& carry = carry_;
  AcousticWindow w;
  w.start = start;
  w.frames = n;
  w.length = latent_length(n);
  const int64_t L = w.length;
  std::vector<bf16> cond = encoder_.encode(hiddens, n, L);
  expect_size(cond, L * cond_channels, "the condition encoder");
  w.overlap = k > 0 ? overlap_length(carry.length, L) : 0;
  const int64_t ov = w.overlap;
  if (ov > 0) splice_rows(cond.data(), carry.condition.data(), ov, cond_channels);

  std::vector<bf16> x = noise_.window_noise(k, channels, L);
  std::vector<bf16> noise_prompt(static_cast<size_t>(channels * ov));
  splice_columns(noise_prompt.data(), ov, x.data(), L, ov, channels);

  WindowSteps steps{L, cond.data(), &sigmas_, ov, noise_prompt.data(), carry.latents.data(), carry.length,
                    [&](int i) {
                      if (options_.progress) options_.progress(k, windows, i, options_.steps);
                    }};
  if (!dit_.run_steps(x.data(), steps)) host_steps(dit_, x, steps);
  if (ov > 0) splice_columns(x.data(), L, carry.latents.data(), carry.length, ov, channels);

  const Span span = carry_span(L);
  carry.length = span.size();
  carry.latents.assign(static_cast<size_t>(channels * carry.length), bf16{});
  for (int64_t c = 0; c < channels; ++c)
    for (int64_t j = 0; j < carry.length; ++j)
      carry.latents[static_cast<size_t>(c * carry.length + j)] = x[static_cast<size_t>(c * L + span.begin + j)];
  carry.condition.assign(cond.begin() + span.begin * cond_channels, cond.begin() + span.end * cond_channels);
  ++next_;
  w.latents = std::move(x);
  return w;
}

AcousticResult run_acoustic(ConditionEncoderArm& encoder, DitArm& dit, const bf16* frame_hiddens, int64_t frames,
                            int64_t frame_width, const NoiseSource& noise, const AcousticOptions& options) {
  AcousticWindowLoop loop(encoder, dit, frame_width, noise, options);
  const std::vector<int64_t> starts = window_starts(frames);
  const int64_t windows = static_cast<int64_t>(starts.size());
  AcousticResult result;
  result.channels = loop.channels();
  for (int64_t start : starts)
    result.windows.push_back(
        loop.run_window(start, frame_hiddens + start * frame_width, window_frames(start, frames), windows));
  return result;
}

}  // namespace music3::acoustic
