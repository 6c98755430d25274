#include "gates/lib/near_tie.h"

#include <algorithm>
#include <cmath>

#include "gates/lib/ulp_stats.h"

namespace music3::gates {
namespace {
double score(const float* g, const float* draws, int32_t i) { return double(g[i]) - std::log(double(draws[i])); }

// ULPs of the larger finite |g| of the two picks (a pick masked to -inf by one side's top-k has no magnitude; its
// score gap is infinite whatever the roundoff).
double roundoff_ulp(const float* ga, const float* gb, int32_t a, int32_t b) {
  float mag = 0;
  for (const float g : {ga[a], ga[b], gb[a], gb[b]})
    if (std::isfinite(g)) mag = std::max(mag, std::fabs(g));
  return bf16_ulp(mag);
}
}  // namespace

bool shared_near_tie(const float* ga, const float* gb, const float* draws, int32_t a, int32_t b, double tol_ulps) {
  const double tol = tol_ulps * roundoff_ulp(ga, gb, a, b);
  const bool a_accepts_b = score(ga, draws, b) >= score(ga, draws, a) - tol;
  const bool b_accepts_a = score(gb, draws, a) >= score(gb, draws, b) - tol;
  return a_accepts_b && b_accepts_a;
}

double near_tie_gap_ulps(const float* ga, const float* gb, const float* draws, int32_t a, int32_t b) {
  const double gap_a = score(ga, draws, a) - score(ga, draws, b);
  const double gap_b = score(gb, draws, b) - score(gb, draws, a);
  return std::max(gap_a, gap_b) / roundoff_ulp(ga, gb, a, b);
}

}  // namespace music3::gates
