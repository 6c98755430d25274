// The per-head RMSNorm of qk_norm_rope (lm_ops.h) on CUDA, shared by cuda.qk_norm_rope (a block of 128 threads per
// head) and the fused first step of cuda.gqa_attention's decode (a warp per head), so both give the same bits:
//   - ss: thread t of 128 holds elements t and t + 128 (D <= 256) and sums fma(v, v, ss) over them in that order;
//     each group of 32 consecutive threads is summed by warp_reduce's butterfly, then the 4 group sums, padded with
//     zeros to 32 lanes, by one more butterfly (block_reduce.cuh's tree for a block of 128);
//   - inv_rms = 1 / sqrtf(ss / D + eps); n = bf16( bf16(x * inv_rms) * w ).
// Device-side helpers: no state.
#pragma once
#include <cstdint>

#include "engine/core/bf16.h"
#include "engine/ops/cuda/block_reduce.cuh"

namespace music3::ops {

constexpr int kHeadNormThreads = 128;  // the tree's thread count: the order of the sum depends on it

__device__ __forceinline__ float head_inv_rms(float ss, int64_t dim, float eps) {
  return 1.0f / sqrtf(ss / static_cast<float>(dim) + eps);
}

__device__ __forceinline__ bf16 head_normed(float x, float inv_rms, bf16 w) {
  return to_bf16(__fmul_rn(round_bf16(__fmul_rn(x, inv_rms)), to_f32(w)));
}

// ss of one head (D <= 256) by one warp, in the 128-thread tree's order; every lane returns it.
__device__ __forceinline__ float head_sum_squares_warp(const bf16* head, int64_t dim, int lane) {
  constexpr int kGroups = kHeadNormThreads / 32;
  float group[kGroups];
#pragma unroll
  for (int w = 0; w < kGroups; ++w) {
    float ss = 0.0f;
    for (int64_t i = w * 32 + lane; i < dim; i += kHeadNormThreads) {
      const float v = to_f32(head[i]);
      ss = __fmaf_rn(v, v, ss);
    }
    group[w] = warp_reduce(ss, SumOp{});
  }
  float mine = 0.0f;
#pragma unroll
  for (int w = 0; w < kGroups; ++w)
    if (lane == w) mine = group[w];
  return warp_reduce(mine, SumOp{});
}

}  // namespace music3::ops
