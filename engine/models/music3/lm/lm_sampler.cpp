#include "engine/models/music3/lm/lm_sampler.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <vector>

#include "engine/models/music3/lm/lm_ids.h"
#include "engine/ops/sampler_algo.h"

namespace music3::lm {
namespace {

// The k-th largest value (1-based) of v, as torch.topk(...).values[k - 1].
float kth_largest(const std::vector<float>& v, int k) {
  std::vector<float> sorted(v);
  const auto nth = sorted.begin() + (std::min<size_t>(size_t(k), sorted.size()) - 1);
  std::nth_element(sorted.begin(), nth, sorted.end(), std::greater<float>());
  return *nth;
}

float nan_to_num(float g) {
  if (g != g) return -1e9f;
  if (g == std::numeric_limits<float>::infinity()) return 1e9f;
  if (g == -std::numeric_limits<float>::infinity()) return -1e9f;
  return g;
}

}  // namespace

LmSample lm_sample(const bf16* logits, const float* draws, float cfg_scale, int cfg_top_k, int top_k,
                   float* guided_out, float* probs_out) {
  using namespace sampler;
  constexpr int K = kSampledColumns;
  LmSample r;
  std::vector<float> c(K), g(K);
  for (int i = 0; i < K; ++i) {
    c[size_t(i)] = to_f32(logits[i]);
    const float u = to_f32(logits[K + i]);
    r.nonfinite += !is_finite_f32(c[size_t(i)]) + !is_finite_f32(u);
    g[size_t(i)] = u + (c[size_t(i)] - u) * cfg_scale;
  }
  const float cond_threshold = kth_largest(c, cfg_top_k);
  for (int i = 0; i < K; ++i) {
    if (c[size_t(i)] < cond_threshold) g[size_t(i)] = -std::numeric_limits<float>::infinity();
    if (guided_out) guided_out[i] = g[size_t(i)];
    g[size_t(i)] = nan_to_num(g[size_t(i)]);
  }
  const float threshold = kth_largest(g, top_k);
  const float max_g = *std::max_element(g.begin(), g.end());
  const uint32_t padded = tree_size(K);
  std::vector<float> weight(padded, 0.0f), tree(padded), prob(padded, 0.0f);
  for (int i = 0; i < K; ++i) weight[size_t(i)] = kept_weight(g[size_t(i)], max_g, !(g[size_t(i)] < threshold));
  tree = weight;
  const float sum = tree_sum(tree.data(), padded);
  for (uint32_t i = 0; i < padded; ++i) prob[i] = normalized(weight[i], sum);
  tree = prob;
  const float sum_p = tree_sum(tree.data(), padded);
  int best = 0;
  float best_score = -std::numeric_limits<float>::infinity();
  for (int i = 0; i < K; ++i) {
    const float p = renormalized(prob[size_t(i)], sum_p);
    if (probs_out) probs_out[i] = p;
    const float score = draw_score(p, draws[i]);
    if (i == 0 || draw_beats(score, uint32_t(i), best_score, uint32_t(best))) {
      best = i;
      best_score = score;
    }
  }
  r.token = column_id(best);
  return r;
}

void lm_generated_draws(uint64_t seed, uint64_t iteration, float* draws) {
  for (int col = 0; col < kSampledColumns; ++col)
    draws[col] = sampler::exp1_draw(seed, iteration, kLmDrawStep, static_cast<uint32_t>(column_id(col)));
}

}  // namespace music3::lm
