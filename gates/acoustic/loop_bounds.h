// The window-loop gates' bounds, each between the correct loop's worst over every case and the tightest catalogued
// mutation it must catch (both measured; numbers beside each bound; mutations/catalogue/acoustic_loop.json, CPU
// battery at 2dbbb22 and the real-arm runs at 618fd4b).
// Teacher-forced against upstream's MiniMaxMusic3CoreDenoiseStep, the loop's own arithmetic (schedule, overlap
// re-noising, guidance, Euler update, splices, carry) is elementwise bf16 math with upstream's rounding points, so
// the correct loop is bit-exact on every case and those bounds are zero differing values.
#pragma once
#include <cstdint>

#include "gates/lib/gate_record.h"

namespace music3::gates::loop_bounds {

// Sigmas and bf16 timesteps vs the real scheduler, 21 step counts: correct worst 0 values | tightest mutation
// scheduler-linspace-f32, 16 values at N = 30 (1 at N = 3 and N = 29).
inline constexpr int64_t kSigmaMismatches = 0;
// DiT and encoder inputs (x, t, condition, frames) differing from upstream's at the same call, summed over a
// case: correct worst 0 | tightest mutation loop-condition-splice-off-by-one, 144 values (one condition row of
// the pair geometry, every step), then loop-carry-end-shifted 384.
inline constexpr int64_t kInputMismatches = 0;
// Final latents differing from upstream's latent_chunks, summed over a case's windows: correct worst 0 | tightest
// mutations loop-final-splice-off-by-one and loop-carry-end-shifted, 128 values (one latent column).
inline constexpr int64_t kLatentMismatches = 0;

// The loop end to end on the real host arms (dit branch) vs upstream, recorded noise, 24 cases. The arms' rare
// rounding differences from torch compound over 2N DiT calls, so only structural defects are in reach here; the
// rounding-point mutations that stay inside the arms' spread (loop-guidance-shift-unrounded: worst mean 7.03,
// exact 0.252; loop-renoise-coef-unrounded; scheduler-linspace-f32, no effect at N = 2, 3, 4, 30) are caught
// bit-exactly by the teacher-forced gate above.
// Correct worst: median 1 (most cases), mean 5.93 (single/seed0), p99.9 1184 (single/seed2), max_conditioned 28
// (triple/seed4), bit-exact fraction 0.281 (triple/seed5).
// Tightest mutation per statistic (worst case of each mutation): median 2 (loop-condition-splice-dropped,
// loop-final-splice-dropped, loop-carry-end-shifted); mean 10.58 (scheduler-euler-product-unrounded; 13.7 for
// scheduler-dt-unrounded and loop-condition-splice-dropped); p99.9 2112 (scheduler-dt-unrounded); max_conditioned
// 222 (loop-condition-splice-dropped; 30 for scheduler-dt-unrounded, not separable by it); exact fraction 0.209
// (scheduler-dt-unrounded) and 0.212 (scheduler-euler-product-unrounded).
inline constexpr UlpBounds kRealArmsVsOracle{/*median*/ 1.5, /*mean*/ 10.0, /*p999*/ 2000.0, /*max_conditioned*/ 100.0};
inline constexpr double kRealArmsMinExactFraction = 0.24;  // correct worst 0.281 | tightest mutation 0.209

}  // namespace music3::gates::loop_bounds
