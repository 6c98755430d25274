#include "engine/ops/lm_sample_rule.h"

#include <algorithm>
#include <functional>
#include <limits>
#include <vector>

#include "engine/ops/sampler_algo.h"

namespace music3::ops {
namespace {

// The k-th largest value (1-based, k clamped to the size) of v in torch.topk's order, where NaN ranks above every
// number: NaN when v holds at least k NaNs, else the (k - NaNs)-th largest number, from one pass that keeps the
// largest so far in a min-heap.
float kth_largest(const std::vector<float>& v, int k) {
  size_t n = std::min<size_t>(size_t(k), v.size());
  const auto nans = size_t(std::count_if(v.begin(), v.end(), [](float x) { return x != x; }));
  if (nans >= n) return std::numeric_limits<float>::quiet_NaN();
  n -= nans;
  std::vector<float> heap;
  heap.reserve(n);
  for (const float x : v) {
    if (x != x) continue;
    if (heap.size() < n) {
      heap.push_back(x);
      std::push_heap(heap.begin(), heap.end(), std::greater<float>());
    } else if (x > heap.front()) {
      std::pop_heap(heap.begin(), heap.end(), std::greater<float>());
      heap.back() = x;
      std::push_heap(heap.begin(), heap.end(), std::greater<float>());
    }
  }
  return heap.front();
}

float nan_to_num(float g) {
  if (g != g) return -1e9f;
  if (g == std::numeric_limits<float>::infinity()) return 1e9f;
  if (g == -std::numeric_limits<float>::infinity()) return -1e9f;
  return g;
}

struct Leaf {
  uint32_t index;
  float value;
};

// sampler::tree_sum of a p-slot array that is +0 except at `leaves` (increasing index, values >= +0, never -0
// or NaN): the same tree, level by level, each slot of [s, 2s) folded onto its slot - s; an addition whose other
// operand is an absent +0 is skipped, exactly (x + +0 = x for every such x).
float sparse_tree_sum(std::vector<Leaf> leaves, uint32_t p) {
  std::vector<Leaf> folded;
  for (uint32_t s = p / 2; s >= 1; s /= 2) {
    const auto upper = std::lower_bound(leaves.begin(), leaves.end(), s,
                                        [](const Leaf& l, uint32_t i) { return l.index < i; });
    folded.clear();
    auto lo = leaves.begin(), hi = upper;
    while (lo != upper || hi != leaves.end()) {  // merge [0, s) with [s, 2s) shifted down by s
      if (hi == leaves.end() || (lo != upper && lo->index < hi->index - s)) {
        folded.push_back(*lo++);
      } else if (lo == upper || hi->index - s < lo->index) {
        folded.push_back({hi->index - s, hi->value});
        ++hi;
      } else {
        folded.push_back({lo->index, lo->value + hi->value});  // sampler::tree_sum_add
        ++lo;
        ++hi;
      }
    }
    leaves.swap(folded);
  }
  return leaves.empty() ? 0.0f : leaves.front().value;
}

}  // namespace

float LmSampleDraws::at(int col) const {
  return recorded ? recorded[col] : sampler::exp1_draw(seed, iteration, step, column_id(col));
}

LmSampleOutcome lm_sample_rule(const bf16* logits, int K, const LmSampleDraws& draws, float cfg_scale, int cfg_top_k,
                               int top_k, float* guided_out, float* probs_out) {
  using namespace sampler;
  LmSampleOutcome r;
  std::vector<float> c(static_cast<size_t>(K)), g(static_cast<size_t>(K));
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
  const uint32_t padded = tree_size(uint32_t(K));
  std::vector<Leaf> kept;  // the nonzero weights; every other column's is +0
  for (int i = 0; i < K; ++i) {
    const float w = kept_weight(g[size_t(i)], max_g, !(g[size_t(i)] < threshold));
    if (w != 0.0f) kept.push_back({uint32_t(i), w});
  }
  const float sum = sparse_tree_sum(kept, padded);
  for (Leaf& l : kept) l.value = normalized(l.value, sum);  // prob; a +0 (underflow) adds exactly below
  const float sum_p = sparse_tree_sum(kept, padded);
  int best = 0;
  float best_score = -std::numeric_limits<float>::infinity();
  for (size_t j = 0; j < kept.size(); ++j) {  // increasing column: the dense loop's order
    const int i = int(kept[j].index);
    const float score = draw_score(renormalized(kept[j].value, sum_p), draws.at(i));
    if (j == 0 || draw_beats(score, uint32_t(i), best_score, uint32_t(best))) {
      best = i;
      best_score = score;
    }
  }
  // Every other column has p = +0, so its score is +0 or -inf (E = 0 or NaN): below a positive best. Otherwise
  // the whole row decides, as the dense rule does.
  if (!(best_score > 0.0f)) {
    size_t j = 0;
    for (int i = 0; i < K; ++i) {
      const float p = j < kept.size() && kept[j].index == uint32_t(i) ? kept[j++].value : 0.0f;
      const float score = draw_score(renormalized(p, sum_p), draws.at(i));
      if (i == 0 || draw_beats(score, uint32_t(i), best_score, uint32_t(best))) {
        best = i;
        best_score = score;
      }
    }
  }
  if (probs_out) {
    std::fill(probs_out, probs_out + K, renormalized(0.0f, sum_p));
    for (const Leaf& l : kept) probs_out[l.index] = renormalized(l.value, sum_p);
  }
  r.column = best;
  return r;
}

}  // namespace music3::ops
