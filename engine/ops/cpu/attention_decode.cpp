// attention_decode on the CPU: one (batch, head) pair per parallel_for index.
// For query row q (width D, head h) over cache positions t < length, in the order a
// flash kernel uses:
//   s_t = dot_bf16_f32(q, k_t, D) * scale          (f32)
//   m = max_t s_t;  e_t = std::exp(s_t - m);  l = sum_t e_t in increasing t   (f32)
//   acc_d = sum_t f32(bf16(e_t)) * f32(v_t[d]) in increasing t               (f32)
//   out_d = bf16( acc_d * (1 / l) )
// i.e. the unnormalised probabilities are rounded to bf16 before P.V and the
// normalisation by the f32 row sum happens once at the end.
#include <algorithm>
#include <cmath>
#include <vector>

#include "engine/core/bf16.h"
#include "engine/core/parallel.h"
#include "engine/ops/cpu/cpu_providers.h"
#include "engine/core/dot_bf16.h"
#include "engine/ops/ops.h"

namespace music3::ops {

void attention_decode_cpu(const Queue& q, const void* args) {
  const auto& p = *static_cast<const AttentionDecodeArgs*>(args);
  const int64_t batch = p.q.shape[0], width = p.q.shape[1], tmax = p.k_cache.shape[1];
  const int64_t dim = width / p.heads;
  const bf16* query = p.q.as<const bf16>();
  const bf16* kc = p.k_cache.as<const bf16>();
  const bf16* vc = p.v_cache.as<const bf16>();
  bf16* out = p.out.as<bf16>();
  parallel_for(batch * p.heads, q.threads, [&](int64_t begin, int64_t end) {
    std::vector<float> prob(static_cast<size_t>(p.length));
    std::vector<float> acc(static_cast<size_t>(dim));
    for (int64_t bh = begin; bh < end; ++bh) {
      const int64_t b = bh / p.heads, h = bh % p.heads;
      const bf16* qrow = query + b * width + h * dim;
      const bf16* krows = kc + b * tmax * width + h * dim;
      const bf16* vrows = vc + b * tmax * width + h * dim;
      float max_s = -INFINITY;
      for (int t = 0; t < p.length; ++t) {
        prob[t] = dot_bf16_f32(qrow, krows + t * width, dim) * p.scale;
        max_s = std::max(max_s, prob[t]);
      }
      float sum = 0.0f;
      for (int t = 0; t < p.length; ++t) {
        const float e = std::exp(prob[t] - max_s);
        sum += e;
        prob[t] = round_bf16(e);
      }
      std::fill(acc.begin(), acc.end(), 0.0f);
      for (int t = 0; t < p.length; ++t) {
        const bf16* vrow = vrows + t * width;
        for (int64_t d = 0; d < dim; ++d) acc[d] += prob[t] * to_f32(vrow[d]);
      }
      const float inv_sum = 1.0f / sum;
      bf16* orow = out + b * width + h * dim;
      for (int64_t d = 0; d < dim; ++d) orow[d] = to_bf16(acc[d] * inv_sum);
    }
  });
}

}  // namespace music3::ops
