// The window-loop gates' bounds, each between the correct loop's worst over every case and the tightest catalogued
// mutation it must catch (both measured; numbers beside each bound).
// Teacher-forced against upstream's MiniMaxMusic3CoreDenoiseStep, the loop's own arithmetic (schedule, overlap
// re-noising, guidance, Euler update, splices, carry) is elementwise bf16 math with upstream's rounding points, so
// the correct loop is bit-exact on every case and every bound is zero differing elements.
#pragma once
#include <cstdint>

namespace music3::gates::loop_bounds {

// Sigmas and bf16 timesteps vs the real scheduler, N in the golden's schedule list: correct worst 0 values |
// tightest mutation TIGHTEST_SIGMAS.
inline constexpr int64_t kSigmaMismatches = 0;
// DiT inputs (x, t, condition) differing from upstream's at the same call, summed over a case: correct worst 0 |
// tightest mutation TIGHTEST_INPUTS.
inline constexpr int64_t kInputMismatches = 0;
// Final latents differing from upstream's latent_chunks, summed over a case's windows: correct worst 0 |
// tightest mutation TIGHTEST_LATENTS.
inline constexpr int64_t kLatentMismatches = 0;

}  // namespace music3::gates::loop_bounds
