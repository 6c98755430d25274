// rope_cpu (head_norm_and_rope.h): one row per parallel_for index; heads head_dim apart, the first D dims (the
// tables' width) of each read whole before they are written, then
// out[i] = bf16( bf16(x[i] * cos[p, i]) + bf16(rot[i] * sin[p, i]) ) with the half split (lm_ops.h). A position
// outside the table throws std::out_of_range.
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/core/bf16.h"
#include "engine/core/parallel.h"
#include "engine/ops/cpu/head_norm_and_rope.h"

namespace music3::ops {

void rope_cpu(const Queue& q, const RopeArgs& a) {
  const int64_t rows = a.x.shape[0], width = a.x.shape[1], dim = a.cos.shape[1], half = dim / 2;
  const int64_t pos0 = a.pos0, last = pos0 + (rows - 1) / a.batch;
  if (pos0 < 0 || last >= a.cos.shape[0])
    throw std::out_of_range("rope (cpu): positions " + std::to_string(pos0) + " .. " + std::to_string(last) +
                            " outside the table of " + std::to_string(a.cos.shape[0]));
  bf16* x = a.x.as<bf16>();
  const bf16* cos = a.cos.as<const bf16>();
  const bf16* sin = a.sin.as<const bf16>();
  parallel_for(rows, q.threads, [&](int64_t begin, int64_t end) {
    std::vector<float> in(static_cast<size_t>(dim));
    for (int64_t r = begin; r < end; ++r) {
      const int64_t p = pos0 + r / a.batch;
      const bf16* c = cos + p * dim;
      const bf16* s = sin + p * dim;
      for (int h = 0; h < a.count; ++h) {
        bf16* head = x + r * width + int64_t(h) * a.head_dim;
        for (int64_t i = 0; i < dim; ++i) in[size_t(i)] = to_f32(head[i]);
        for (int64_t i = 0; i < dim; ++i) {
          const float rot = i < half ? -in[size_t(i + half)] : in[size_t(i - half)];
          head[i] = to_bf16(round_bf16(in[size_t(i)] * to_f32(c[i])) + round_bf16(rot * to_f32(s[i])));
        }
      }
    }
  });
}

}  // namespace music3::ops
