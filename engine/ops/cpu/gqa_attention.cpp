// gqa_attention on the CPU: first every token's k and v are stored in the caches (rows
// pos .. pos + T - 1), then one (row, query head) pair per parallel_for index attends its
// causal prefix of K/V head h / (nH / nKV) with attention_decode_cpu's arithmetic in its
// order (one chunk: the whole prefix):
//   s_t = dot_bf16_f32(q, k_t, D) * scale;  m = max s_t;  e_t = std::exp(s_t - m);
//   l = sum e_t in increasing t;  acc_d = sum f32(bf16(e_t)) * f32(v_t[d]);  out = bf16(acc * (1 / l)).
// A position past the cache throws std::out_of_range before anything is written.
#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/core/bf16.h"
#include "engine/core/dot_bf16.h"
#include "engine/core/parallel.h"
#include "engine/ops/cpu/cpu_providers.h"
#include "engine/ops/lm_ops.h"

namespace music3::ops {

void gqa_attention_cpu(const Queue& q, const void* args) {
  const auto& a = *static_cast<const GqaAttentionArgs*>(args);
  const int64_t batch = a.k_cache.shape[0], tmax = a.k_cache.shape[1], kv_width = a.k_cache.shape[2];
  const int64_t dim = kv_width / a.kv_heads, q_width = a.heads * dim, row_width = a.qkv.shape[1];
  const int64_t rows = a.qkv.shape[0], tokens = rows / batch, group = a.heads / a.kv_heads;
  const int64_t pos = *a.pos.as<const int32_t>();
  if (pos < 0 || pos + tokens > tmax)
    throw std::out_of_range("gqa_attention (cpu): positions " + std::to_string(pos) + " .. " +
                            std::to_string(pos + tokens - 1) + " outside the cache of " + std::to_string(tmax));
  const bf16* qkv = a.qkv.as<const bf16>();
  bf16* kc = a.k_cache.as<bf16>();
  bf16* vc = a.v_cache.as<bf16>();
  for (int64_t r = 0; r < rows; ++r) {
    const int64_t b = r % batch, at = (b * tmax + pos + r / batch) * kv_width;
    std::memcpy(kc + at, qkv + r * row_width + q_width, size_t(kv_width) * sizeof(bf16));
    std::memcpy(vc + at, qkv + r * row_width + q_width + kv_width, size_t(kv_width) * sizeof(bf16));
  }
  bf16* out = a.out.as<bf16>();
  parallel_for(rows * a.heads, q.threads, [&](int64_t begin, int64_t end) {
    std::vector<float> prob(static_cast<size_t>(tmax)), acc(static_cast<size_t>(dim));
    for (int64_t i = begin; i < end; ++i) {
      const int64_t r = i / a.heads, h = i % a.heads, b = r % batch, length = pos + r / batch + 1;
      const bf16* qrow = qkv + r * row_width + h * dim;
      const bf16* krows = kc + b * tmax * kv_width + (h / group) * dim;
      const bf16* vrows = vc + b * tmax * kv_width + (h / group) * dim;
      float max_s = -INFINITY;
      for (int64_t t = 0; t < length; ++t) {
        prob[size_t(t)] = dot_bf16_f32(qrow, krows + t * kv_width, dim) * a.scale;
        max_s = std::max(max_s, prob[size_t(t)]);
      }
      float sum = 0.0f;
      for (int64_t t = 0; t < length; ++t) {
        const float e = std::exp(prob[size_t(t)] - max_s);
        sum += e;
        prob[size_t(t)] = round_bf16(e);
      }
      std::fill(acc.begin(), acc.end(), 0.0f);
      for (int64_t t = 0; t < length; ++t) {
        const bf16* vrow = vrows + t * kv_width;
        for (int64_t d = 0; d < dim; ++d) acc[size_t(d)] += prob[size_t(t)] * to_f32(vrow[d]);
      }
      const float inv_sum = 1.0f / sum;
      bf16* orow = out + r * q_width + h * dim;
      for (int64_t d = 0; d < dim; ++d) orow[d] = to_bf16(acc[size_t(d)] * inv_sum);
    }
  });
}

}  // namespace music3::ops
