#include "gates/lib/near_tie.h"

#include <algorithm>
#include <cmath>
#include <functional>
#include <vector>

#include "gates/lib/ulp_stats.h"

namespace music3::gates {
namespace {
double score(float g, float draw) { return double(g) - std::log(double(draw)); }

// ULPs of the larger finite |g| of the given guided logits (a pick masked to -inf by one side's top-k has no
// magnitude; its score gap is infinite whatever the roundoff).
double roundoff_ulp(std::initializer_list<float> gs) {
  float mag = 0;
  for (const float g : gs)
    if (std::isfinite(g)) mag = std::max(mag, std::fabs(g));
  return bf16_ulp(mag);
}

// One side of the LM sampler over its sliced rows: the conditional logit c, the guided logit of a column with no
// prefilter mask, and the prefilter's threshold T (the k-th largest c).
struct SamplerSide {
  const bf16* rows;
  int64_t columns;
  float threshold;
  float cond(int32_t i) const { return to_f32(rows[i]); }
  float guided(int32_t i, float scale) const {
    const float c = cond(i), u = to_f32(rows[columns + i]);
    return u + (c - u) * scale;  // lm_sampler.cpp's f32 expression
  }
  bool masks(int32_t i) const { return cond(i) < threshold; }
};

SamplerSide sampler_side(const bf16* rows, int64_t columns, int top_k) {
  std::vector<float> c(static_cast<size_t>(columns));
  for (int64_t i = 0; i < columns; ++i) c[size_t(i)] = to_f32(rows[i]);
  const auto kth = c.begin() + (std::min<int64_t>(top_k, columns) - 1);
  std::nth_element(c.begin(), kth, c.end(), std::greater<float>());
  return {rows, columns, *kth};
}
}  // namespace

bool shared_near_tie(const float* ga, const float* gb, const float* draws, int32_t a, int32_t b, double tol_ulps) {
  const double tol = tol_ulps * roundoff_ulp({ga[a], ga[b], gb[a], gb[b]});
  const bool a_accepts_b = score(ga[b], draws[b]) >= score(ga[a], draws[a]) - tol;
  const bool b_accepts_a = score(gb[a], draws[a]) >= score(gb[b], draws[b]) - tol;
  return a_accepts_b && b_accepts_a;
}

double near_tie_gap_ulps(const float* ga, const float* gb, const float* draws, int32_t a, int32_t b) {
  const double gap_a = score(ga[a], draws[a]) - score(ga[b], draws[b]);
  const double gap_b = score(gb[b], draws[b]) - score(gb[a], draws[a]);
  return std::max(gap_a, gap_b) / roundoff_ulp({ga[a], ga[b], gb[a], gb[b]});
}

PrefilterTie prefilter_near_tie(const bf16* logits_a, const bf16* logits_b, int64_t columns, const float* draws,
                                int32_t a, int32_t b, float cfg_scale, int cfg_top_k, double tie_ulps,
                                double tol_ulps) {
  const SamplerSide sides[2] = {sampler_side(logits_a, columns, cfg_top_k),
                                sampler_side(logits_b, columns, cfg_top_k)};
  // Where neither pick can be the winner, the report is of the pick some side masked (the flip to explain).
  PrefilterTie best;
  bool best_masked = false;
  for (const int32_t w : {a, b}) {
    const int32_t other = w == a ? b : a;
    PrefilterTie t;
    t.winner = w;
    t.holds = true;
    const bool masked = sides[0].masks(w) || sides[1].masks(w);
    const float g[2][2] = {{sides[0].guided(w, cfg_scale), sides[0].guided(other, cfg_scale)},
                           {sides[1].guided(w, cfg_scale), sides[1].guided(other, cfg_scale)}};
    const double ulp = roundoff_ulp({g[0][0], g[0][1], g[1][0], g[1][1]});
    for (int s = 0; s < 2; ++s) {
      const SamplerSide& side = sides[s];
      if (side.masks(w)) {
        const double below = (double(side.threshold) - side.cond(w)) / bf16_ulp(side.threshold);
        t.threshold_ulps = std::max(t.threshold_ulps, below);
        t.holds = t.holds && below <= tie_ulps;
      }
      const double gap = (score(g[s][1], draws[other]) - score(g[s][0], draws[w])) / ulp;
      t.gap_ulps = std::max(t.gap_ulps, gap);
      t.holds = t.holds && gap <= tol_ulps;
    }
    if (t.holds) return t;
    if (best.winner < 0 || (masked && (!best_masked || t.threshold_ulps < best.threshold_ulps)))
      best = t, best_masked = masked;
  }
  best.winner = -1;
  return best;
}

}  // namespace music3::gates
