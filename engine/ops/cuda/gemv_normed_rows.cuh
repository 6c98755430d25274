// NormedRows: a gemv_bt.cuh activation source that is add_rms_norm's output, computed in the GEMV's prologue
// instead of by a kernel of its own (add_rms_norm_matmul_bt.cu). Per activation row m of the block:
//   h[i] = bf16( f32(x[m, i]) + f32(r[m, i]) ),
//   ss   = thread tid's fmaf(f32(h[i]), f32(h[i]), .) over i = tid, tid + 256, ... in increasing i, then the
//          256 partials through block_reduce.cuh's fixed tree,
//   inv  = 1 / sqrtf(ss / K + eps),
//   a[i] = bf16( bf16(f32(h[i]) * inv) * f32(w[i]) ),
// which is add_rms_norm.cu's arithmetic in its order on a block of the same 256 threads, so a has its bits and the
// GEMV's sums are matmul_bt's on them. Every block computes its rows' ss (the rows are K values: a re-read from L2,
// no grid-wide step); blocks with blockIdx.x == 0 also write h to h_out, which must not overlap x or r (other blocks
// still read them). a is never written: each lane rebuilds its chunks from x, r and w.
#pragma once
#include <cstdint>

#include "engine/core/bf16.h"
#include "engine/ops/cuda/block_reduce.cuh"
#include "engine/ops/cuda/gemv_bt.cuh"
#include "engine/ops/cuda/pdl.cuh"

namespace music3::ops::gemv {

constexpr int kMaxNormedRows = 2;  // rows per block the prologue holds an inverse RMS for (the decode step's two)
constexpr int kNormBatch = 16;     // elements per thread loaded before any is stored: one batch covers K <= 4096

struct NormedRows {
  const bf16* x;             // [M, K], written by earlier kernels: read after pdl_wait
  const bf16* r;             // [M, K], likewise
  const bf16* w;              // [K] the norm's weight
  bf16* h_out;               // [M, K] = x + r, written by the blocks with blockIdx.x == 0
  int64_t k;
  float eps;
  int first_row = 0;                     // set by prepare(): the block's first activation row (m0)
  float inv_rms[kMaxNormedRows] = {};    // set by prepare(): per block row

  template <int R>
  __device__ void prepare(int m0, int rows_total) {
    static_assert(R <= kMaxNormedRows, "NormedRows holds kMaxNormedRows inverse RMS values");
    __shared__ float scratch[32];
    first_row = m0;
    const bool writer = blockIdx.x == 0;
#pragma unroll
    for (int m = 0; m < R; ++m) {
      if (m0 + m >= rows_total) break;  // uniform over the block
      const int64_t row = int64_t{m0 + m} * k;
      float ss = 0.0f;
      // A batch's loads all issue before its first store: h_out may alias x or r as far as the compiler knows, so
      // an element-by-element loop would wait out one memory round trip per element.
      for (int64_t base = threadIdx.x; base < k; base += int64_t{kThreads} * kNormBatch) {
        bf16 xv[kNormBatch], rv[kNormBatch];
#pragma unroll
        for (int u = 0; u < kNormBatch; ++u) {
          const int64_t i = base + int64_t{u} * kThreads;
          if (i < k) xv[u] = x[row + i], rv[u] = r[row + i];
        }
#pragma unroll
        for (int u = 0; u < kNormBatch; ++u) {
          const int64_t i = base + int64_t{u} * kThreads;
          if (i < k) {
            const bf16 h = to_bf16(to_f32(xv[u]) + to_f32(rv[u]));
            if (writer) h_out[row + i] = h;
            const float v = to_f32(h);
            ss = __fmaf_rn(v, v, ss);  // increasing i, as add_rms_norm.cu
          }
        }
      }
      ss = block_reduce(ss, 0.0f, scratch, SumOp{});
      inv_rms[m] = 1.0f / sqrtf(ss / static_cast<float>(k) + eps);
    }
  }

  // Chunk c of row m (absolute, in the block's rows): a's 8 values as f32.
  __device__ void chunk(int m, int64_t c, float (&f)[8]) const {
    const int64_t base = int64_t{m} * k + c * kChunk;
    float xf[8], rf[8], wf[8];
    unpack_bf16x8(load_produced16(reinterpret_cast<const uint4*>(x + base)), xf);
    unpack_bf16x8(load_produced16(reinterpret_cast<const uint4*>(r + base)), rf);
    unpack_bf16x8(__ldg(reinterpret_cast<const uint4*>(w) + c), wf);
    const float inv = m == first_row ? inv_rms[0] : inv_rms[1];  // a select, not a local-memory index
#pragma unroll
    for (int e = 0; e < 8; ++e) {
      const float h = round_bf16(xf[e] + rf[e]);
      f[e] = round_bf16(round_bf16(h * inv) * wf[e]);
    }
  }
};

}  // namespace music3::ops::gemv
