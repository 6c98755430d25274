// The acoustic gates' bounds, each between the correct host arm's worst over all 24 cases (4 geometries x 6 seeds)
// and the tightest catalogued mutation it must catch; both measured, written beside each bound as
// "correct worst | tightest mutation". A mutation is caught when any case crosses a bound, so "tightest" is, over
// the mutations, the smallest of each one's worst case (the largest, for the lower bounds on the exact fraction).
// Mutation figures: the CPU battery at 425caf0 (mutations/catalogue/acoustic.json; 23/23 killed), its logs under
// reports/mutations/acoustic/2026-12-01-425caf0f1085-cpu/log/.
#pragma once
#include "gates/lib/gate_record.h"

namespace music3::gates::acoustic_bounds {

// Condition encoder vs the pinned MiniMaxMusic3ConditionEncoder (condition [L][out_dim]). The host arm is
// bit-exact on every case (all statistics 0, exact fraction 1.0), so the bounds sit just above zero.
// Tightest mutations: median 1 (acoustic-encoder-softmax-bf16, odd/seed0); mean 5.65 and p99.9 264.5
// (acoustic-encoder-integer-resample: realhead/seed1, tiny/seed2, the 150-frame windows); max_conditioned 10.5
// (acoustic-encoder-softmax-bf16, tiny/seed2). zero_max: correct worst 0 (CPU, 24 cases) | tightest mutation: none
// reaches it, the 24 goldens hold no exact-zero reference (0 of 149,200 elements, measured at 9edfe2a).
inline constexpr UlpBounds kEncoderVsOracle{/*median*/ 0.5,           // 0 | 1
                                            /*mean*/ 0.5,             // 0 | 5.65
                                            /*p999*/ 8.0,             // 0 | 264.5
                                            /*max_conditioned*/ 4.0,   // 0 | 10.5
                                            /*zero_max*/ 0.5};         // 0 | unreachable (see above)

// 1.0 | 0.9981 (acoustic-encoder-integer-resample, odd/seed0: 24 of 12384 elements, the rows whose integer index
// departs from the float32 one); every other encoder mutation <= 0.30.
inline constexpr double kEncoderMinExactFraction = 0.999;

// DiT vs the pinned MiniMaxMusic3Transformer1DModel (both guidance branches, [in_channels][L]). The host arm is
// bit-exact on the short windows and within a few roundings of torch's elsewhere: torch's CPU flash attention
// above ~128 keys still differs in rare f32 roundings, which the bf16 network then amplifies (one flipped element
// moves its neighbours through attention). Correct worst: median 1 (quiet/seed0 v_cond), mean 3.675 and p99.9 384
// (realhead/seed1 v_uncond), max_conditioned 24 (quiet/seed0 v_cond), exact fraction 0.318 (quiet/seed4 v_cond).
// Tightest mutation: acoustic-loader-f32-truncated (the load-time cast truncating instead of rounding: every weight
// off by up to one ULP), median 9 (quiet/seed4 v_cond), mean 61.1, p99.9 24700 (quiet/seed1 v_uncond),
// max_conditioned 94 (quiet/seed0 v_cond); every structural mutation has median >= 36
// (acoustic-dit-fourier-cos-sin-swapped, tiny/seed0).
// zero_max (121 exact-zero references over the 24 cases): correct worst 4 (CPU, 24 cases) | tightest mutation
// acoustic-dit-fourier-pi: 6.75 (realhead/seed0 v_uncond), inside the bound (its other statistics kill it), then
// dit-loader-linear2-bias-from-linear1: 13 (tiny/seed0 v_uncond) and acoustic-loader-f32-truncated: 16 (quiet/seed5
// v_uncond); every other DiT mutation >= 23. Measured at 9edfe2a: the 17 catalogued mutations of
// gate_acoustic_dit_parity re-run with MUSIC3_GATE_RECORD_DIR. The bound sits between the two (6: 1.5x the correct
// worst, under the tightest mutation's 6.75).
inline constexpr UlpBounds kDitVsOracle{/*median*/ 4.0,             // 1 | 9
                                        /*mean*/ 16.0,              // 3.675 | 61.1
                                        /*p999*/ 4096.0,            // 384 | 24700
                                        /*max_conditioned*/ 48.0,  // 24 | 94
                                        /*zero_max*/ 6.0};          // 4 | 6.75 (see above)
// 0.318 | 0.0145 (acoustic-loader-f32-truncated, quiet/seed2 v_uncond); structural mutations <= 0.011
// (acoustic-dit-fourier-cos-sin-swapped, realhead/seed5 v_uncond).
inline constexpr double kDitMinExactFraction = 0.15;

}  // namespace music3::gates::acoustic_bounds
