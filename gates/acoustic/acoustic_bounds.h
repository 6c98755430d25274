// The acoustic gates' bounds, each between the correct host arm's worst over all 18 cases and the tightest
// catalogued mutation it must catch (both measured; numbers beside each bound).
#pragma once
#include "gates/lib/gate_record.h"

namespace music3::gates::acoustic_bounds {

// Condition encoder vs the pinned MiniMaxMusic3ConditionEncoder (condition [L][out_dim]).
inline constexpr UlpBounds kEncoderVsOracle{/*median*/ 0.5, /*mean*/ 0.1, /*p999*/ 2.0, /*max_conditioned*/ 2.0};
inline constexpr double kEncoderMinExactFraction = 0.99;

// DiT vs the pinned MiniMaxMusic3Transformer1DModel (both guidance branches, [in_channels][L]).
inline constexpr UlpBounds kDitVsOracle{/*median*/ 2.0, /*mean*/ 10.0, /*p999*/ 1024.0, /*max_conditioned*/ 48.0};
inline constexpr double kDitMinExactFraction = 0.25;

}  // namespace music3::gates::acoustic_bounds
