// head_rms_norm_cpu (head_norm_and_rope.h): one (row, head) pair per parallel_for index, rms_norm_cpu's
// arithmetic over the head: ss = dot_bf16_f32(x, x, D); r = 1 / sqrt(ss / D + eps) in f32;
// out = bf16( bf16(x * r) * w ), written in place after the head's sum.
#include <cmath>

#include "engine/core/bf16.h"
#include "engine/core/dot_bf16.h"
#include "engine/core/parallel.h"
#include "engine/ops/cpu/head_norm_and_rope.h"

namespace music3::ops {

void head_rms_norm_cpu(const Queue& q, const HeadRmsNormArgs& a) {
  const int64_t rows = a.x.shape[0], width = a.x.shape[1], dim = a.w.shape[0];
  bf16* x = a.x.as<bf16>();
  const bf16* w = a.w.as<const bf16>();
  parallel_for(rows * a.count, q.threads, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      bf16* head = x + (i / a.count) * width + (a.first + i % a.count) * dim;
      const float ss = dot_bf16_f32(head, head, dim);
      const float inv_rms = 1.0f / std::sqrt(ss / static_cast<float>(dim) + a.eps);
      for (int64_t d = 0; d < dim; ++d) head[d] = to_bf16(round_bf16(to_f32(head[d]) * inv_rms) * to_f32(w[d]));
    }
  });
}

}  // namespace music3::ops
