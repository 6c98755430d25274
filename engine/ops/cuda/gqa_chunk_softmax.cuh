// One query head of a decode attention chunk of n <= 32 positions, by one warp (lane p: position p), the step both
// gqa_attention kernels share (gqa_attention.cu, gqa_attention_fixed.cu), so their bits agree: m = the max of the
// chunk's scores (a warp max: exact in any order); e_p = expf(s_p - m); l = e_0 + e_1 + ... in increasing p by
// lane 0; score[p] becomes bf16(e_p). score and expo are the head's rows in shared memory. Device-side helper.
#pragma once
#include "engine/core/bf16.h"

namespace music3::ops {

__device__ __forceinline__ void gqa_chunk_softmax(float* score, float* expo, float& chunk_max, float& chunk_sum,
                                                  int lane, int n) {
  const float sp = lane < n ? score[lane] : -INFINITY;
  float m = sp;
#pragma unroll
  for (int o = 16; o >= 1; o /= 2) m = fmaxf(m, __shfl_xor_sync(0xFFFFFFFFu, m, o));
  if (lane < n) {
    const float e = expf(sp - m);
    expo[lane] = e;
    score[lane] = round_bf16(e);
  }
  __syncwarp();
  if (lane == 0) {
    float l = 0.0f;
    for (int p = 0; p < n; ++p) l += expo[p];
    chunk_max = m;
    chunk_sum = l;
  }
}

}  // namespace music3::ops
