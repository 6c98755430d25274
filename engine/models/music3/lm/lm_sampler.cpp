#include "engine/models/music3/lm/lm_sampler.h"

#include "engine/models/music3/lm/lm_ids.h"
#include "engine/ops/lm_sample_rule.h"

namespace music3::lm {

ops::LmSampleDraws LmDraws::rule_draws() const {
  ops::LmSampleDraws d;
  d.recorded = recorded;
  d.seed = seed;
  d.iteration = iteration;
  d.step = kLmDrawStep;
  d.first_id = kAudioEndId;
  d.next_id = kCodeOffset;
  return d;
}

float LmDraws::at(int col) const { return rule_draws().at(col); }

LmSample lm_sample(const bf16* logits, const float* draws, float cfg_scale, int cfg_top_k, int top_k,
                   float* guided_out, float* probs_out) {
  return lm_sample(logits, LmDraws{draws}, cfg_scale, cfg_top_k, top_k, guided_out, probs_out);
}

LmSample lm_sample(const bf16* logits, const LmDraws& draws, float cfg_scale, int cfg_top_k, int top_k,
                   float* guided_out, float* probs_out) {
  const ops::LmSampleOutcome o =
      ops::lm_sample_rule(logits, kSampledColumns, draws.rule_draws(), cfg_scale, cfg_top_k, top_k, guided_out,
                          probs_out);
  return {column_id(o.column), o.nonfinite};
}

void mask_eos(bf16* logits) { logits[0] = logits[kSampledColumns] = kMaskedLogit; }

void lm_generated_draws(uint64_t seed, uint64_t iteration, float* draws) {
  const LmDraws generated{nullptr, seed, iteration};
  for (int col = 0; col < kSampledColumns; ++col) draws[col] = generated.at(col);
}

}  // namespace music3::lm
