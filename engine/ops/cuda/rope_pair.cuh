// One rotated pair of rope (lm_ops.h) on CUDA: lo = x[i], hi = x[i + D/2] of a head, both read before either is
// written, with cos/sin c, s the table row of the position:
//   lo' = bf16( bf16(lo * c[i])        + bf16(-hi * s[i]) )
//   hi' = bf16( bf16(hi * c[i + D/2])  + bf16(lo * s[i + D/2]) )
// round-to-nearest multiplies and adds (no contraction): the CPU provider's bits. Shared by cuda.rope and the
// rotary load of cuda.self_attention, so the two give the same bits. Device-side helper: no state.
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
