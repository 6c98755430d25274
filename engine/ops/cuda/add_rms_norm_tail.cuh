// matmul_bt's add_rms_norm epilogue (ops.h) as the tail of the GEMV (gemv_bt.cuh; provider
// cuda.matmul_bt.gemv.add_norm): the block that finishes last of the whole grid (last_arrival.cuh: every block
// arrives once at arrivals[0]) adds the residual and norms the rows, so the decode step loses add_rms_norm's kernel
// boundary and nothing is computed twice.
// Arithmetic: cuda.add_rms_norm's (add_rms_norm.cu) for rows of N <= 4096, so its bits: thread t of the 256 forms
// h[i] = bf16(f32(x[i]) + f32(r[i])) for i = t, t + 256, ... and sums f32(h[i])^2 in increasing i; the block's fixed
// tree (block_reduce.cuh, 256 threads as there) gives ss; inv = 1 / sqrtf(ss / N + eps); a[i] = bf16(bf16(h[i] inv)
// w[i]). r is the GEMV's output (other blocks wrote it: read at L2), x the residual (read likewise: produced data),
// h_out may be x. Both rows' loads are issued before either row's sums, then each row's tree in turn.
// Rows: the grid's single row group (the provider takes M <= 2). Device code: no state.
#pragma once
#include <cstdint>

#include "engine/core/bf16.h"
#include "engine/ops/cuda/block_reduce.cuh"
#include "engine/ops/cuda/last_arrival.cuh"
#include "engine/ops/cuda/pdl.cuh"

namespace music3::ops::gemv {

constexpr int kAddNormBatch = 16;  // elements per thread and row: one batch covers N <= 4096 at 256 threads

struct AddRmsNormTail {
  const bf16* x;  // [M, N], the residual (may be h_out)
  const bf16* w;  // [N]
  bf16* h_out;    // [M, N]
  bf16* a_out;    // [M, N]
  int* arrivals;  // [1], zero between calls
  float eps;

  template <int R>
  __device__ void finish(int64_t, int64_t, int m0, int rows_total, int64_t n_total, bf16* out) const {
    static_assert(R <= 2, "the grid's one row group");
    __shared__ float scratch[32];
    if (!arrive_last(arrivals, gridDim.x)) return;
    const int t = static_cast<int>(threadIdx.x), rows = ::min(R, rows_total - m0);
    const int64_t n = n_total;
    bf16 h[R][kAddNormBatch];
    float ss[R];
#pragma unroll
    for (int m = 0; m < R; ++m) {
      ss[m] = 0.0f;
#pragma unroll
      for (int u = 0; u < kAddNormBatch; ++u) {
        const int64_t i = t + int64_t{u} * 256, at = (m0 + m) * n + i;
        if (m < rows && i < n)
          h[m][u] = to_bf16(to_f32(bf16{load_produced2(x + at)}) + to_f32(bf16{load_produced2(out + at)}));
      }
    }
#pragma unroll
    for (int m = 0; m < R; ++m)
#pragma unroll
      for (int u = 0; u < kAddNormBatch; ++u) {
        const int64_t i = t + int64_t{u} * 256;
        if (m < rows && i < n) {
          h_out[(m0 + m) * n + i] = h[m][u];
          const float v = to_f32(h[m][u]);
          ss[m] = __fmaf_rn(v, v, ss[m]);  // increasing i, as add_rms_norm.cu
        }
      }
#pragma unroll
    for (int m = 0; m < R; ++m) {
      if (m >= rows) break;  // block-uniform
      const float total = block_reduce(ss[m], 0.0f, scratch, SumOp{});
      const float inv_rms = 1.0f / sqrtf(total / static_cast<float>(n) + eps);
#pragma unroll
      for (int u = 0; u < kAddNormBatch; ++u) {
        const int64_t i = t + int64_t{u} * 256;
        if (i < n) a_out[(m0 + m) * n + i] = to_bf16(round_bf16(to_f32(h[m][u]) * inv_rms) * to_f32(w[i]));
      }
    }
  }
};

}  // namespace music3::ops::gemv
