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
// prefilter_near_tie() is the LM sampler's form of the rule (lm_sampler.h: guided = u + (c - u) * scale, then the
// conditional row's top-k prefilter masks every column whose conditional logit c is below the k-th largest, T),
// for a pair of picks where a prefilter mask makes the score gap infinite. It holds when one of the two picks, w,
// is the winner both sides would agree on were w kept: (1) a side that masked w did so at a tie of the prefilter,
// T - c(w) <= tie_ulps bf16 ULPs of T; (2) with w and the other pick unmasked on both sides, each side's score of
// w is within tol_ulps (as above) of its score of the other pick, or above it. `threshold_ulps` reports the
// largest T - c(w) of (1) in those ULPs (0 where no side masked w), `gap_ulps` the larger side's score gap of (2).
// Thread-safety: pure functions.
#pragma once
#include <cstdint>

#include "engine/core/bf16.h"

namespace music3::gates {

// Derived (1.5 + 0.5 ULP of the two logits' rounding). Correct worst: 1.106 (the one differing token of the pipeline
// songs with a finite score gap, heads_w1_seed3; every tiny song's tokens are equal) | tightest catalogued
// mutation: near-tie-tolerance-one-ulp-wider (3 ULPs accepted; gate_lib_near_tie_test).
constexpr double kNearTieUlps = 2.0;
// The prefilter's tie. Correct worst: 1 ULP, all four flips of the heads songs (heads_w1_seed0 iteration 26 and the
// same path in heads_w2_seed0, heads_w1_seed3 iterations 31 and 46: the masked pick 1 ULP below the masking side's
// 50th conditional logit; gates/pipeline records tokens.prefilter_tie_max_ulps per song) | tightest catalogued
// mutation: prefilter-tie-distance-unchecked (any distance accepted; gate_lib_near_tie_test refuses 3 ULPs).
constexpr double kPrefilterTieUlps = 2.0;

// guided_*: [V] guided logits of each side; draws: [V] the shared Exp(1) draws.
bool shared_near_tie(const float* guided_a, const float* guided_b, const float* draws, int32_t pick_a,
                     int32_t pick_b, double tol_ulps = kNearTieUlps);
double near_tie_gap_ulps(const float* guided_a, const float* guided_b, const float* draws, int32_t pick_a,
                         int32_t pick_b);

struct PrefilterTie {
  bool holds = false;
  int32_t winner = -1;        // w, when the rule holds
  double threshold_ulps = 0;  // (1) for w
  double gap_ulps = 0;        // (2) for w
};
// logits_*: [2][columns] bf16, each side's conditional row then its CFG row; draws: [columns].
PrefilterTie prefilter_near_tie(const bf16* logits_a, const bf16* logits_b, int64_t columns, const float* draws,
                                int32_t pick_a, int32_t pick_b, float cfg_scale, int cfg_top_k,
                                double tie_ulps = kPrefilterTieUlps, double tol_ulps = kNearTieUlps);

}  // namespace music3::gates
