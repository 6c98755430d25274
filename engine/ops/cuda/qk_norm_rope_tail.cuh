// matmul_bt's qk_norm_rope epilogue (ops.h) as the tail of the GEMV (gemv_bt.cuh; provider
// cuda.matmul_bt.gemv.norm_rope): the block that finishes a head last norms and rotates it, so the decode step loses
// qk_norm_rope's kernel boundary and nothing is computed twice.
//   - Election (last_arrival.cuh): after its last tile each block arrives at arrivals[h] for every normed head its
//     rows touch; the head's block count is that of the blocks whose row range meets it (gemv_split.h: the inverse
//     of the kernel's split); the last reads the others' outputs at L2.
//   - Arithmetic: cuda.qk_norm_rope's (qk_norm_rope.cu) with D = 128, so its bits: thread i of a row's 128 threads
//     holds x[i]; ss is its warp's butterfly (block_reduce.cuh) and then (w0 + w2) + (w1 + w3) over the row's four
//     warps, the sum block_reduce's warp-0 butterfly forms from four values padded with zeros; r = 1 / sqrtf(ss / D +
//     eps); n = bf16(bf16(x r) w); then the pair rotation of rope_pair.cuh at pos[0] + row / batch, dims past the
//     table's width R and rows past the table keeping n.
// Rows: the GEMV's R <= 2 rows of its blockIdx.y = 0 group (the provider takes M <= 2). Device code: no state.
#pragma once
#include <cstdint>

#include "engine/core/bf16.h"
#include "engine/ops/cuda/block_reduce.cuh"
#include "engine/ops/cuda/gemv_split.h"
#include "engine/ops/cuda/last_arrival.cuh"
#include "engine/ops/cuda/pdl.cuh"
#include "engine/ops/cuda/rope_pair.cuh"

namespace music3::ops::gemv {

constexpr int kNormRopeDim = 128;  // the head width the tail is compiled for: a thread per element of a row's head

struct QkNormRopeTail {
  const bf16* q_norm;
  const bf16* k_norm;
  const bf16* cos;
  const bf16* sin;
  const int32_t* pos;
  int* arrivals;  // [normed_heads], zero between calls
  int heads, normed_heads, batch, rot, positions;
  float eps;

  template <int R>
  __device__ void finish(int64_t n_begin, int64_t n_end, int m0, int rows_total, int64_t n_total, bf16* out) const {
    __shared__ float sums[8];
    __shared__ bf16 normed[2][kNormRopeDim];
    static_assert(R <= 2, "two rows of 128 threads in a 256-thread block");
    const int64_t first = n_begin / kNormRopeDim;
    const int64_t end = ::min((n_end - 1) / kNormRopeDim + 1, static_cast<int64_t>(normed_heads));
    // Every head's work ends before the next arrive_last's barrier, so `sums` and `normed` are free again there.
    for (int64_t h = first; h < end; ++h)
      if (arrive_last(arrivals + h, split_blocks_meeting(h * kNormRopeDim, h * kNormRopeDim + kNormRopeDim - 1,
                                                         gridDim.x, n_total)))
        norm_rope_head<R>(h, m0, rows_total, n_total, out, sums, normed);
  }

  template <int R>
  __device__ void norm_rope_head(int64_t h, int m0, int rows_total, int64_t n_total, bf16* out, float* sums,
                                 bf16 (*normed)[kNormRopeDim]) const {
    const int t = static_cast<int>(threadIdx.x), m = t / kNormRopeDim, i = t % kNormRopeDim;
    const int lane = t % 32, warp = t / 32;
    const bool live = m < R && m0 + m < rows_total;
    bf16* head = out + (m0 + m) * n_total + h * kNormRopeDim;
    float v = 0.0f, ss = 0.0f;
    if (live) {
      v = to_f32(bf16{load_produced2(head + i)});
      ss = __fmaf_rn(v, v, 0.0f);  // bf16 * bf16 is exact in f32
    }
    ss = warp_reduce(ss, SumOp{});
    if (lane == 0) sums[warp] = ss;
    __syncthreads();
    const int w0 = warp / 4 * 4;  // the row's four warps
    ss = __fadd_rn(__fadd_rn(sums[w0], sums[w0 + 2]), __fadd_rn(sums[w0 + 1], sums[w0 + 3]));
    const float inv_rms = 1.0f / sqrtf(ss / static_cast<float>(kNormRopeDim) + eps);
    const bf16* w = h < heads ? q_norm : k_norm;
    if (live) normed[m][i] = to_bf16(__fmul_rn(round_bf16(__fmul_rn(v, inv_rms)), to_f32(w[i])));
    __syncthreads();
    if (!live) return;
    const int64_t p = int64_t{pos[0]} + (m0 + m) / batch, half = rot / 2;
    const bool rotate = p >= 0 && p < positions;
    const bf16* c = cos + (rotate ? p : 0) * rot;
    const bf16* s = sin + (rotate ? p : 0) * rot;
    if (rotate && i < half) {
      bf16 lo = normed[m][i], hi = normed[m][i + half];
      rope_pair(lo, hi, c, s, i, half);
      head[i] = lo;
      head[i + half] = hi;
    } else if (!rotate || i >= rot) {
      head[i] = normed[m][i];
    }
  }
};

}  // namespace music3::ops::gemv
