// The acoustic stage's window loop (diffusers' MiniMaxMusic3ChunkDenoiseStep): frame hiddens [F][8H] to one
// latent tensor [C][L] per 200-frame window, driving a ConditionEncoderArm and a DitArm (acoustic_arms.h).
// Contract, upstream's order per window k (acoustic_windows.h, acoustic_scheduler.h, acoustic_guidance.h):
//   cond = encoder.encode(frames of the window, n, L = latent_length(n)); with a carry from window k-1, its first
//   ov = min(carried, L) rows become the carried condition rows; x = the window's noise (acoustic_noise.h) and
//   noise_prompt = its first ov columns; then for each of the N steps: the overlap is re-noised to t = bf16(sigma_i),
//   the DiT gives both branches at (x, t, cond), v = guide(v_c, v_u), x = euler_step(x, v, dt_i) (the steps run by
//   the DiT arm where it has its own loop, DitArm::run_steps, with the same bits; else here over velocities()); after the steps
//   the first ov columns become the carried latents exactly; the carry is x[:, a:b] and cond[a:b] for
//   [a, b) = carry_span(L). Each window's latents are returned whole (uncropped), as the vocoder's stitching
//   (engine/models/music3/vocoder/vocoder_stitch.h) takes them.
// Errors: AcousticError with a kind: "geometry" (the arms disagree on channels, or frame_width is not positive),
// "arm_output" (an arm returned a tensor of the wrong size), plus NoiseError from the noise source and
// std::invalid_argument for no frames or steps < 1. The DiT is called 2·N times per window (forwards()).
// AcousticWindowLoop is that loop one window at a time, in window order (the carry passes between calls): what
// run_acoustic() drives over window_starts(F), and what `music3 generate` feeds while the AR stage still runs
// (engine/models/music3/pipeline/window_worker.h). run_window(start, hiddens, n, windows) runs the next window
// over the n frames at `hiddens` ([n][frame_width], the caller's copy of frames [start, start + n)); `windows` is
// only passed to the progress callback.
// Thread-safety: one run (one loop) at a time per pair of arms; the loop itself is single-threaded.
#pragma once
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/core/bf16.h"
#include "engine/models/music3/acoustic/acoustic_arms.h"
#include "engine/models/music3/acoustic/acoustic_noise.h"

namespace music3::acoustic {

class AcousticError : public std::runtime_error {
 public:
  AcousticError(std::string kind, const std::string& message);
  const std::string& kind() const { return kind_; }

 private:
  std::string kind_;
};

struct AcousticOptions {
  int steps = 30;
  // After every Euler step: window index, window count, step index (0-based), steps.
  std::function<void(int64_t window, int64_t windows, int step, int steps)> progress;
};

struct AcousticWindow {
  int64_t start = 0;   // first frame
  int64_t frames = 0;  // n
  int64_t length = 0;  // L
  int64_t overlap = 0; // ov: latents spliced from the previous window
  std::vector<bf16> latents;  // [channels][length]
};

struct AcousticResult {
  int64_t channels = 0;
  std::vector<AcousticWindow> windows;
};

class AcousticWindowLoop {
 public:
  AcousticWindowLoop(ConditionEncoderArm& encoder, DitArm& dit, int64_t frame_width, const NoiseSource& noise,
                     AcousticOptions options);
  AcousticWindow run_window(int64_t start, const bf16* hiddens, int64_t n, int64_t windows);
  int64_t channels() const { return channels_; }
  int64_t windows_done() const { return next_; }

 private:
  ConditionEncoderArm& encoder_;
  DitArm& dit_;
  const NoiseSource& noise_;
  AcousticOptions options_;
  std::vector<float> sigmas_;
  int64_t channels_ = 0, cond_channels_ = 0, next_ = 0;
  struct Carry {
    int64_t length = 0;           // carried latent columns (none before the first window)
    std::vector<bf16> latents;    // [channels][length]
    std::vector<bf16> condition;  // [length][cond_channels]
  } carry_;
};

AcousticResult run_acoustic(ConditionEncoderArm& encoder, DitArm& dit, const bf16* frame_hiddens, int64_t frames,
                            int64_t frame_width, const NoiseSource& noise, const AcousticOptions& options);

}  // namespace music3::acoustic
