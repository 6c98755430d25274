// Bounds of the LM / AR-stage parity gates, each between the correct arm's worst over
// every geometry and seed ("correct worst", measured on the regenerated oracle) and
// the smallest value of the tightest catalogued mutation it must catch ("tightest
// defect", mutations/catalogue/lm.json, CPU battery).
#pragma once
#include "gates/lib/gate_record.h"

namespace music3::gates::lm_bounds {

// Hiddens: prefill (every position), the last hidden of every iteration, frame_hiddens.
inline constexpr UlpBounds kHidden{/*median*/ 4.0, /*mean*/ 20.0, /*p999*/ 1500.0, /*max_conditioned*/ 64.0};
// Sliced lm_head logits.
inline constexpr UlpBounds kLogits{/*median*/ 4.0, /*mean*/ 20.0, /*p999*/ 1500.0, /*max_conditioned*/ 64.0};
// Feedback embeddings (pure data movement and three roundings).
inline constexpr UlpBounds kFeedback{/*median*/ 0.0, /*mean*/ 0.0, /*p999*/ 0.0, /*max_conditioned*/ 0.0};

}  // namespace music3::gates::lm_bounds
