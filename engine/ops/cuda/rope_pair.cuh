// One rotated pair of qk_norm_rope's rotation (lm_ops.h) on CUDA: lo = x[i], hi = x[i + R/2] of a head (R the
// table's width), both read before either is written, with cos/sin c, s the table row of the position:
//   lo' = bf16( bf16(lo * c[i])        + bf16(-hi * s[i]) )
//   hi' = bf16( bf16(hi * c[i + R/2])  + bf16(lo * s[i + R/2]) )
// round-to-nearest multiplies and adds (no contraction): the bits of the CPU's rope_cpu. Shared by
// cuda.qk_norm_rope, the rotary tile load of cuda.self_attention and the rotary copy of its cuDNN form
// (rope_rows.cu), so all three rotate alike. Device-side helper: no state.
#pragma once
#include <cstdint>

#include "engine/core/bf16.h"

namespace music3::ops {

__device__ __forceinline__ void rope_pair(bf16& lo, bf16& hi, const bf16* __restrict__ c, const bf16* __restrict__ s,
                                          int64_t i, int64_t half) {
  const float a = to_f32(lo), b = to_f32(hi);
  lo = to_bf16(__fadd_rn(round_bf16(__fmul_rn(a, to_f32(c[i]))), round_bf16(__fmul_rn(-b, to_f32(s[i])))));
  hi = to_bf16(
      __fadd_rn(round_bf16(__fmul_rn(b, to_f32(c[i + half]))), round_bf16(__fmul_rn(a, to_f32(s[i + half])))));
}

}  // namespace music3::ops
