// The LM sampler, exactly as upstream's AR step draws a token (encoders.py): on the
// sliced lm_head logits (lm_ids.h; every other id is -inf upstream):
//   1. c, u = f32 of the bf16 conditional / unconditional logits;
//   2. g = u + (c - u) * cfg_scale in f32, in that order;
//   3. the conditional row's top-cfg_top_k pre-filter: g_i = -inf where c_i < the
//      cfg_top_k-th largest c (ties kept; torch.topk's order, NaN above every number); the
//      result is what `_sample_top_k` receives (`guided_out`);
//   4. `_sample_top_k`: nan_to_num (NaN, -inf -> -1e9; +inf -> 1e9); keep the values >=
//      the top_k-th largest (ties kept); softmax; renormalise by the sum clamped at
//      1e-12 (`probs_out`); token = argmax_i p_i / E_i over the columns, equal scores to
//      the lowest id.
// The rule itself is ops::lm_sample_rule (engine/ops/lm_sample_rule.h), which the op
// lm_sample's CPU provider runs too: the softmax's exp and sums are sampler_algo.h's
// fixed-order f32 pieces, so every provider of the rule gives the same bits. E is indexed
// by the full-vocabulary id: draws[col] must hold E[column_id(col)], so a recorded
// upstream draw (an exponential_ over the whole vocabulary) replays exactly. Non-finite
// raw logits are counted.
// Pure function over caller-owned buffers: thread-safe.
#pragma once
#include <cstdint>

#include "engine/core/bf16.h"
#include "engine/ops/lm_sample_rule.h"

namespace music3::lm {

struct LmSample {
  int32_t token = -1;      // the sampled LM id (151670 or 151675 + code)
  uint32_t nonfinite = 0;  // non-finite raw logits seen in both rows
};

// E of column col: recorded[col] when the caller holds the draws (a replayed trace), else
// the engine's generator keyed by (seed, iteration) (lm_generated_draws' values), formed
// only for the columns the sampler reads.
struct LmDraws {
  const float* recorded = nullptr;  // f32 [K], or null: generated
  uint64_t seed = 0, iteration = 0;
  float at(int col) const;
  ops::LmSampleDraws rule_draws() const;  // the same draws as the op lm_sample's rule takes them
};

// logits: bf16 [2, K] (row 0 conditional, row 1 unconditional); guided_out, probs_out:
// f32 [K] or null.
LmSample lm_sample(const bf16* logits, const LmDraws& draws, float cfg_scale, int cfg_top_k, int top_k,
                   float* guided_out, float* probs_out);
// The same with recorded draws: f32 [K].
LmSample lm_sample(const bf16* logits, const float* draws, float cfg_scale, int cfg_top_k, int top_k,
                   float* guided_out, float* probs_out);

// Benchmarking only (music3 generate --ignore-eos): column 0 (<|audio_end|>) of both rows of logits [2, K] set to
// the lowest finite bf16, which the conditional row's top-50 pre-filter then removes.
constexpr bf16 kMaskedLogit{0xFF7F};  // -3.39e38
void mask_eos(bf16* logits);

// The Exp(1) draws the engine uses without a recorded trace: the counter-based draw
// keyed by (seed, iteration, kLmDrawStep, full-vocabulary id), into draws[K].
constexpr uint32_t kLmDrawStep = 0xFFFFu;
void lm_generated_draws(uint64_t seed, uint64_t iteration, float* draws);

}  // namespace music3::lm
