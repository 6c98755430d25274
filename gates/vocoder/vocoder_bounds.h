// The vocoder gates' bounds, each between the correct arm's worst over all cases and the tightest catalogued
// mutation it must catch (both measured; numbers beside each bound).
// The bf16 vocoder is chaotic in its rounding: flipping one element of dec_in_proj's output by one ULP inside
// upstream's own forward changes 40-47% of the waveform's samples, by 10-17 ULP on average (measured on narrow,
// odd and realdims cases). So a correct arm whose f32 accumulation order differs from torch's in rare roundings
// lands anywhere from bit-exact to ~40% of samples moved; the gates bound the robust statistics accordingly and
// add a lower bound on the bit-exact fraction, which every structural defect drives towards 0.
#pragma once
#include "gates/lib/gate_record.h"

namespace music3::gates::vocoder_bounds {

// Host arm vs the pinned upstream module (parity goldens, 24 cases; the stitching and device gates reuse them).
// Correct worst (host arm, CPU, 24 cases): median 0, mean 12.85 (realdims/seed1), p99.9 1246 (odd/seed2),
// max_conditioned 89 (realdims/seed3); the stitching cases are bit-exact.
// Tightest catalogued mutation (CPU battery, mutations/catalogue/vocoder.json): vocoder-tanh-dropped, whose worst
// case reaches median 42 and mean 82.8 (realdims/seed3), max_conditioned 585 (narrow/seed4); every other parity
// mutation has median >= 29 on every case (vocoder-conv-bias-dropped, realdims/seed3).
inline constexpr UlpBounds kVsOracle{/*median*/ 0.5, /*mean*/ 40.0, /*p999*/ 4000.0, /*max_conditioned*/ 400.0};
// Fraction of samples bit-identical to upstream's. Correct worst 0.585 (realdims/seed1: 1798 of 3072); tightest
// mutation vocoder-tanh-dropped, 0.030 at realdims/seed3 (its best case, narrow/seed1, keeps 0.592: the gate
// fails on any case); every other parity mutation stays <= 0.022 on every case.
inline constexpr double kMinExactFraction = 0.40;

}  // namespace music3::gates::vocoder_bounds
