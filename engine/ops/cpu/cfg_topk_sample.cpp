// cfg_topk_sample on the CPU: the algorithm of sampler_algo.h, step by step, on one
// thread (V is a codebook size: 1024 here). #{j : g_j > g_i} is read off a copy of
// g sorted in descending order, which gives exactly the count the contract names.
// The nonfinite counter is an I32 tensor holding a u32 count (wraps modulo 2^32).
#include <algorithm>
#include <functional>
#include <vector>

#include "engine/core/bf16.h"
#include "engine/ops/cpu/cpu_providers.h"
#include "engine/ops/ops.h"
#include "engine/ops/sampler_algo.h"

namespace music3::ops {

void cfg_topk_sample_cpu(const Queue&, const void* args) {
  using namespace sampler;
  const auto& p = *static_cast<const CfgTopkSampleArgs*>(args);
  const auto vocab = static_cast<uint32_t>(p.logits.shape[1]);
  const bf16* cond = p.logits.as<const bf16>();
  const bf16* uncond = cond + vocab;
  const float* draws = p.exp_draws.as<const float>();
  float* guided = p.guided_out.as<float>();

  uint32_t nonfinite = 0;
  for (uint32_t i = 0; i < vocab; ++i) {
    nonfinite += !is_finite_f32(to_f32(cond[i])) + !is_finite_f32(to_f32(uncond[i]));
    guided[i] = guided_logit(cond[i], uncond[i], p.cfg_scale);
  }

  std::vector<float> sorted(guided, guided + vocab);
  std::sort(sorted.begin(), sorted.end(), std::greater<float>());
  const float max_g = sorted[0];
  const uint32_t padded = tree_size(vocab);
  std::vector<float> weight(padded, 0.0f), tree(padded);
  for (uint32_t i = 0; i < vocab; ++i) {
    const float g = guided[i];
    const auto greater = static_cast<uint32_t>(
        std::partition_point(sorted.begin(), sorted.end(), [g](float v) { return v > g; }) - sorted.begin());
    weight[i] = kept_weight(g, max_g, is_kept(greater, p.top_k));
  }
  tree = weight;
  const float sum = tree_sum(tree.data(), padded);
  std::vector<float> prob(padded);
  for (uint32_t i = 0; i < padded; ++i) prob[i] = normalized(weight[i], sum);
  tree = prob;
  const float sum_p = tree_sum(tree.data(), padded);

  uint32_t best = 0;
  float best_score = draw_score(renormalized(prob[0], sum_p), draws[0]);
  for (uint32_t i = 1; i < vocab; ++i) {
    const float score = draw_score(renormalized(prob[i], sum_p), draws[i]);
    if (draw_beats(score, i, best_score, best)) {
      best = i;
      best_score = score;
    }
  }
  p.code_out.as<int32_t>()[0] = static_cast<int32_t>(best);
  *p.nonfinite.as<uint32_t>() += nonfinite;
}

}  // namespace music3::ops
