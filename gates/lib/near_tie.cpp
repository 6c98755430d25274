#include "gates/lib/near_tie.h"

#include <algorithm>
#include <cmath>

#include "gates/lib/ulp_stats.h"

namespace music3::gates {
namespace {
double score(const float* g, const float* draws, int32_t i) { return double(g[i]) - std::log(double(draws[i])); }
}  // namespace

bool shared_near_tie(const float* ga, const float* gb, const float* draws, int32_t a, int32_t b, double tol_ulps) {
  const float mag = std::max({std::fabs(ga[a]), std::fabs(ga[b]), std::fabs(gb[a]), std::fabs(gb[b])});
  const double tol = tol_ulps * bf16_ulp(mag);
  const bool a_accepts_b = score(ga, draws, b) >= score(ga, draws, a) - tol;
  const bool b_accepts_a = score(gb, draws, a) >= score(gb, draws, b) - tol;
  return a_accepts_b && b_accepts_a;
}

}  // namespace music3::gates
