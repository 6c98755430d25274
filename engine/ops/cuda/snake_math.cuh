// Snake's per-element arithmetic on CUDA (vocoder_ops.h's snake contract, snake_cpu's rounding points), shared by
// the snake kernels (snake.cu) and the sm90 conv epilogue that applies Snake to its own output
// (conv1d_cutlass_sm90.cuh), so both give the same bits. sinf is CUDA's full-range one (within 2 ulp of f32 sin:
// the bf16 rounding of sin(bf16 a x) can differ from the host's in rare ties; the device band gate measures it).
#pragma once
#include "engine/core/bf16.h"

namespace music3::ops {

// bf16(1 / bf16(alpha + 1e-9)): the per-channel factor.
__device__ __forceinline__ float snake_inverse(float a) { return round_bf16(1.0f / round_bf16(a + 1e-9f)); }

// x + bf16(inv * bf16(s^2)), s = bf16(sin(bf16(a x))), the sum rounded: six roundings.
__device__ __forceinline__ bf16 snake_value(float v, float a, float inv) {
  const float s = round_bf16(sinf(round_bf16(a * v)));
  return to_bf16(v + round_bf16(inv * round_bf16(s * s)));
}

}  // namespace music3::ops
