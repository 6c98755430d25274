// matmul_bt on the CPU: out[m, n] = bf16( dot_bf16_f32(a[m, :], b[n, :], K) [+ bias[n]] ), the bias added to
// the f32 dot before the one rounding.
// Work is split over the weight rows n. For M <= 16 (decode, a GEMV sweep) each
// weight row is read once and dotted with every activation row while it sits in L1;
// for larger M the weight rows are taken in tiles of 8 so a tile stays cached while
// every activation row passes over it. Every output is the same function of its
// row pair either way, so the bits depend on neither M nor the thread count.
#include <algorithm>
#include <vector>

#include "engine/core/bf16.h"
#include "engine/core/parallel.h"
#include "engine/ops/cpu/cpu_providers.h"
#include "engine/core/dot_bf16.h"
#include "engine/ops/ops.h"

namespace music3::ops {

void matmul_bt_cpu(const Queue& q, const void* args) {
  const auto& p = *static_cast<const MatmulBTArgs*>(args);
  const int64_t rows = p.a.shape[0], k = p.a.shape[1], cols = p.b.shape[0];
  const bf16* a = p.a.as<const bf16>();
  const bf16* b = p.b.as<const bf16>();
  bf16* out = p.out.as<bf16>();
  const bf16* bias = p.bias.as<const bf16>();
  auto finish = [bias](float dot, int64_t n) { return to_bf16(bias ? dot + to_f32(bias[n]) : dot); };
  if (rows <= 16) {
    // GEMV sweep: activations widened once; each weight row widened once for all rows.
    std::vector<float> af(static_cast<size_t>(rows * k));
    for (int64_t i = 0; i < rows * k; ++i) af[static_cast<size_t>(i)] = to_f32(a[i]);
    parallel_for(cols, q.threads, [&](int64_t begin, int64_t end) {
      float acc[16];
      for (int64_t n = begin; n < end; ++n) {
        dot_rows_f32_bf16(af.data(), static_cast<int>(rows), k, b + n * k, k, acc);
        for (int64_t m = 0; m < rows; ++m) out[m * cols + n] = finish(acc[m], n);
      }
    });
    return;
  }
  constexpr int64_t tile = 8;
  parallel_for(cols, q.threads, [&](int64_t begin, int64_t end) {
    for (int64_t n0 = begin; n0 < end; n0 += tile) {
      const int64_t n1 = std::min(end, n0 + tile);
      for (int64_t m = 0; m < rows; ++m)
        for (int64_t n = n0; n < n1; ++n) out[m * cols + n] = finish(dot_bf16_f32(a + m * k, b + n * k, k), n);
    }
  });
}

}  // namespace music3::ops
