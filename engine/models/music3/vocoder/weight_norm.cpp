#include "engine/models/music3/vocoder/weight_norm.h"

#include <cmath>
#include <stdexcept>

namespace music3::vocoder {

std::vector<bf16> fold_weight_norm(const std::vector<bf16>& g, const std::vector<bf16>& v, int64_t d0, int64_t d1,
                                   int64_t k, int norm_dim, const std::string& what) {
  const int64_t kept = norm_dim == 0 ? d0 : d1;
  if (static_cast<int64_t>(g.size()) != kept)
    throw std::runtime_error(what + ": weight_g has " + std::to_string(g.size()) + " entries, the weight norm keeps " +
                             std::to_string(kept));
  std::vector<double> sum_sq(static_cast<size_t>(kept), 0.0);
  for (int64_t i = 0; i < d0; ++i)
    for (int64_t j = 0; j < d1; ++j) {
      const int64_t slot = norm_dim == 0 ? i : j;  // the norm runs over every other dimension
      for (int64_t t = 0; t < k; ++t) {
        const double x = to_f32(v[static_cast<size_t>((i * d1 + j) * k + t)]);
        sum_sq[static_cast<size_t>(slot)] += x * x;
      }
    }
  std::vector<float> scale(static_cast<size_t>(kept));
  for (int64_t a = 0; a < kept; ++a) {
    const float norm = std::sqrt(static_cast<float>(sum_sq[static_cast<size_t>(a)]));
    if (norm == 0.0f)
      throw std::runtime_error(what + ": weight_v slice " + std::to_string(a) + " is all zeros, so its weight norm divides by zero");
    scale[static_cast<size_t>(a)] = to_f32(g[static_cast<size_t>(a)]) / norm;
  }
  std::vector<bf16> w(v.size());
  for (int64_t i = 0; i < d0; ++i)
    for (int64_t j = 0; j < d1; ++j) {
      const float s = scale[static_cast<size_t>(norm_dim == 0 ? i : j)];
      for (int64_t t = 0; t < k; ++t) {
        const size_t e = static_cast<size_t>((i * d1 + j) * k + t);
        w[e] = to_bf16(to_f32(v[e]) * s);
      }
    }
  return w;
}

}  // namespace music3::vocoder
