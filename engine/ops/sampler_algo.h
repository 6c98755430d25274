// The CFG top-k sampler's algorithm, as element-level steps shared by the CPU and CUDA
// providers of cfg_topk_sample, so that both draw the same code from the same inputs.
// Contract (V logits per row, top_k >= 1, E the Exp(1) draws):
//   1. g_i = guided_logit(cond_i, uncond_i, cfg) (sampler_math.h, nan_to_num included);
//      the raw bf16 logits of both rows that are non-finite are counted first.
//   2. keep_i  <=>  #{j : g_j > g_i} < top_k      (every value tied with the
//      top_k-th largest is kept, so more than top_k may survive).
//   3. m = max_i g_i;  e_i = keep_i ? det_exp_nonpos(g_i - m) : 0.
//   4. S = tree_sum(e) with the fixed tree below;  p_i = e_i / S.
//   5. S2 = tree_sum(p);  p_i = p_i / max(S2, 1e-12f)   (the reference's renormalisation).
//   6. code = argmax_i score(p_i, E_i), score = p_i / |E_i| with NaN read as -inf;
//      equal scores go to the lowest index.
// The tree sum: pad a[] with zeros to P = the next power of two >= V, then for
// s = P/2, P/4, ..., 1: a[i] = a[i] + a[i + s] for every i < s; the sum is a[0].
// A parallel implementation runs each level's additions concurrently (they are
// independent) and must finish a level before starting the next. Every step is a
// fixed sequence of IEEE f32 operations (see sampler_math.h), so the bits do not
// depend on which processor or how many threads evaluate them.
#pragma once
#include <cstdint>

#include "engine/ops/sampler_math.h"

namespace music3::sampler {

// The smallest power of two >= n (n >= 1).
MUSIC3_HD uint32_t tree_size(uint32_t n) {
  uint32_t p = 1;
  while (p < n) p <<= 1;
  return p;
}

// One addition of the fixed tree: level `s`, slot `i < s`.
MUSIC3_HD void tree_sum_add(float* a, uint32_t i, uint32_t s) { a[i] = a[i] + a[i + s]; }

// The whole tree on one thread: a[] holds P = tree_size(V) values (zero padded) and is consumed.
MUSIC3_HD float tree_sum(float* a, uint32_t p) {
  for (uint32_t s = p / 2; s >= 1; s /= 2)
    for (uint32_t i = 0; i < s; ++i) tree_sum_add(a, i, s);
  return a[0];
}

MUSIC3_HD bool is_kept(uint32_t greater_count, int top_k) { return greater_count < static_cast<uint32_t>(top_k); }

MUSIC3_HD float kept_weight(float g, float max_g, bool kept) { return kept ? det_exp_nonpos(g - max_g) : 0.0f; }

MUSIC3_HD float normalized(float e, float sum) { return e / sum; }

MUSIC3_HD float renormalized(float p, float sum_p) { return p / (sum_p > 1e-12f ? sum_p : 1e-12f); }

// p / |E|. E = -0 (exp1_draw gives it when its u rounds to 1) counts as +0, so a
// kept code with E = ±0 scores +inf and wins, as torch's p / E does for E = 0; a
// NaN (0 / 0: a filtered code with E = ±0) reads as -inf, so it never wins and the
// argmax is over a total order.
MUSIC3_HD float draw_score(float p, float e) {
  float r = p / f32_from_bits(f32_bits(e) & 0x7FFFFFFFu);
  return r != r ? f32_from_bits(0xFF800000u) : r;  // -inf
}

// True when candidate (score_a, index_a) beats (score_b, index_b): higher score, then lower index.
MUSIC3_HD bool draw_beats(float score_a, uint32_t index_a, float score_b, uint32_t index_b) {
  return score_a > score_b || (score_a == score_b && index_a < index_b);
}

}  // namespace music3::sampler
