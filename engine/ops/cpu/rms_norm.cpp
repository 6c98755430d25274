// rms_norm on the CPU: one row per parallel_for index.
// Per row: ss = dot_bf16_f32(x, x, N) (its fixed order); r = 1 / sqrt(ss / N + eps)
// in f32; out = bf16( bf16(x * r) * w ). Reading x[i] before writing out[i] makes
// out == x (in place) safe.
#include <cmath>

#include "engine/core/bf16.h"
#include "engine/core/parallel.h"
#include "engine/ops/cpu/cpu_providers.h"
#include "engine/core/dot_bf16.h"
#include "engine/ops/ops.h"

namespace music3::ops {

void rms_norm_cpu(const Queue& q, const void* args) {
  const auto& a = *static_cast<const RmsNormArgs*>(args);
  const int64_t rows = a.x.shape[0], n = a.x.shape[1];
  const bf16* x = a.x.as<const bf16>();
  const bf16* w = a.w.as<const bf16>();
  bf16* out = a.out.as<bf16>();
  parallel_for(rows, q.threads, [&](int64_t begin, int64_t end) {
    for (int64_t r = begin; r < end; ++r) {
      const bf16* xr = x + r * n;
      bf16* yr = out + r * n;
      const float ss = dot_bf16_f32(xr, xr, n);
      const float inv_rms = 1.0f / std::sqrt(ss / static_cast<float>(n) + a.eps);
      for (int64_t i = 0; i < n; ++i) yr[i] = to_bf16(round_bf16(to_f32(xr[i]) * inv_rms) * to_f32(w[i]));
    }
  });
}

}  // namespace music3::ops
