// The language model's sampler rule over K sliced columns, on the host: the algorithm the CPU provider of
// lm_sample runs (lm_ops.h states the rule) and the AR loop's host sampler calls (lm_sampler.h).
// Cost: the kept columns (about top_k of K) carry every nonzero weight, so the sums run over them alone (the
// tree's other leaves are +0, which adds exactly) and E is read only where a kept column's score decides; the
// whole row's scores are formed only when no kept score is positive (then a +0 score could tie).
// Pure function over caller-owned buffers: thread-safe.
#pragma once
#include <cstdint>

#include "engine/core/bf16.h"

namespace music3::ops {

// E of column col: recorded[col] when given (a replayed trace), else the counter-based draw
// exp1_draw(seed, iteration, step, id(col)) with id(0) = first_id and id(c) = next_id + c - 1 for c >= 1 (the
// full-vocabulary id, so a recorded upstream draw over the whole vocabulary replays exactly).
struct LmSampleDraws {
  const float* recorded = nullptr;  // f32 [K], or null: generated
  uint64_t seed = 0, iteration = 0;
  uint32_t step = 0;
  int32_t first_id = 0, next_id = 0;
  uint32_t column_id(int col) const { return uint32_t(col == 0 ? first_id : next_id + col - 1); }
  float at(int col) const;
};

struct LmSampleOutcome {
  int32_t column = -1;     // the sampled column
  uint32_t nonfinite = 0;  // non-finite raw logits seen in both rows
};

// logits: bf16 [2, K] (row 0 conditional, row 1 unconditional), 1 <= K; guided_out, probs_out: f32 [K] or null.
LmSampleOutcome lm_sample_rule(const bf16* logits, int K, const LmSampleDraws& draws, float cfg_scale, int cfg_top_k,
                               int top_k, float* guided_out, float* probs_out);

}  // namespace music3::ops
