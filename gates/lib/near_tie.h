// The sampled-code comparison rule: two samplers that picked
// different codes from the same draws agree only at a shared near-tie, i.e. when
// each side ranks the other's pick within one roundoff of its own best.
// Contract: a pick's score is g_i - ln(E_i) (argmax of p/E in log space; the
// softmax's shared constants cancel); the roundoff is tol_ulps bf16 ULPs of the
// larger |g| of the two picks (the guided logit carries up to 2 ULPs: 1.5 and 0.5
// of the bf16 rounding of the conditional and unconditional logits).
// near_tie_gap_ulps() is the quantity the rule bounds: the larger of the two sides' score gaps (each side's own
// pick's score minus the other pick's), in those ULPs (+inf when one side's top-k masked the other's pick);
// shared_near_tie() holds when both gaps are <= tol_ulps.
// Thread-safety: pure functions.
#pragma once
#include <cstdint>

namespace music3::gates {

constexpr double kNearTieUlps = 2.0;

// guided_*: [V] guided logits of each side; draws: [V] the shared Exp(1) draws.
bool shared_near_tie(const float* guided_a, const float* guided_b, const float* draws, int32_t pick_a,
                     int32_t pick_b, double tol_ulps = kNearTieUlps);
double near_tie_gap_ulps(const float* guided_a, const float* guided_b, const float* draws, int32_t pick_a,
                         int32_t pick_b);

}  // namespace music3::gates
