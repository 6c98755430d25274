// layer_norm / add_layer_norm on the CPU: one row per parallel_for index. With a residual the row
// h = bf16(x + r) is formed first (and written to h_out after it is read whole, so h_out may be x); then
// mean = sum(h) / N and var = sum((h - mean)^2) / N, each an f32 sum in index order, rstd = 1 / sqrt(var + eps),
// a_out = bf16((h * rstd + (-mean * rstd)) * w + b).
#include <cmath>
#include <vector>

#include "engine/core/bf16.h"
#include "engine/core/parallel.h"
#include "engine/ops/cpu/cpu_providers.h"
#include "engine/ops/transformer_ops.h"

namespace music3::ops {

void layer_norm_cpu(const Queue& q, const void* args) {
  const auto& p = *static_cast<const LayerNormArgs*>(args);
  const int64_t rows = p.x.shape[0], n = p.x.shape[1];
  const bf16* x = p.x.as<const bf16>();
  const bf16* r = p.r.as<const bf16>();
  const bf16* w = p.w.as<const bf16>();
  const bf16* b = p.b.as<const bf16>();
  bf16* h_out = p.h_out.as<bf16>();
  bf16* a_out = p.a_out.as<bf16>();
  parallel_for(rows, q.threads, [&](int64_t begin, int64_t end) {
    std::vector<float> h(static_cast<size_t>(n));
    for (int64_t m = begin; m < end; ++m) {
      for (int64_t i = 0; i < n; ++i) {
        const float v = to_f32(x[m * n + i]);
        h[size_t(i)] = r ? round_bf16(v + to_f32(r[m * n + i])) : v;
      }
      if (r)
        for (int64_t i = 0; i < n; ++i) h_out[m * n + i] = to_bf16(h[size_t(i)]);
      float sum = 0.0f;
      for (int64_t i = 0; i < n; ++i) sum += h[size_t(i)];
      const float mean = sum / float(n);
      float sq = 0.0f;
      for (int64_t i = 0; i < n; ++i) sq += (h[size_t(i)] - mean) * (h[size_t(i)] - mean);
      const float rstd = 1.0f / std::sqrt(sq / float(n) + p.eps), shift = -mean * rstd;
      for (int64_t i = 0; i < n; ++i)
        a_out[m * n + i] = to_bf16((h[size_t(i)] * rstd + shift) * to_f32(w[i]) + to_f32(b[i]));
    }
  });
}

}  // namespace music3::ops
