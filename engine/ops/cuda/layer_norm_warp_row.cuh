// One LayerNorm row held by one warp, the arithmetic of layer_norm.cu's warp kernel: lane l holds indices
// c * 256 + 8 l .. + 7 of chunk c < lane_chunks(n, l) (16-byte loads and stores); h = x, or bf16(x + r) stored to
// h_out; the lane's sums of h and of (h - mean)^2 in chunk, then element order, each closed by warp_reduce's
// butterfly; mean and var over n; out = bf16((h * rstd + (-mean * rstd)) * w + b) with round-to-nearest multiplies
// and adds (no contraction).
// Device-side helpers: no state.
#pragma once
#include <cstdint>

#include "engine/core/bf16.h"
#include "engine/ops/cuda/block_reduce.cuh"

namespace music3::ops::warp_row {

constexpr int kChunk = 256;  // one 16-byte load per lane
constexpr int kMaxChunks = 2048 / kChunk;

// (rstd, -mean * rstd) of a row: every LayerNorm kernel's normaliser.
__device__ __forceinline__ float2 scale_shift(float mean, float var, float eps) {
  const float rstd = 1.0f / sqrtf(var + eps), shift = -mean * rstd;
  return make_float2(rstd, shift);
}

__device__ __forceinline__ void unpack8(const uint4& u, float* f) {
  const bf16* h = reinterpret_cast<const bf16*>(&u);
#pragma unroll
  for (int k = 0; k < 8; ++k) f[k] = to_f32(h[k]);
}

// Chunks lane holds in a row of n: its first index c * 256 + 8 lane lies inside the row.
__device__ __forceinline__ int lane_chunks(int64_t n, int lane) {
  return static_cast<int>((n - lane * 8 + kChunk - 1) / kChunk);
}

// The lane's chunks of x and (when r) r of the row starting at base.
__device__ __forceinline__ void load(const bf16* x, const bf16* r, int64_t base, int lane, int chunks,
                                     uint4 (&xv)[kMaxChunks], uint4 (&rv)[kMaxChunks]) {
#pragma unroll
  for (int c = 0; c < kMaxChunks; ++c) {
    if (c >= chunks) break;
    const int64_t i = base + c * kChunk + lane * 8;
    xv[c] = *reinterpret_cast<const uint4*>(x + i);
    if (r) rv[c] = *reinterpret_cast<const uint4*>(r + i);
  }
}

// v = the lane's h (with the residual: bf16(x + r), also stored to h_row); returns the lane's sum of h.
__device__ __forceinline__ float take(const uint4 (&xv)[kMaxChunks], const uint4 (&rv)[kMaxChunks], bool residual,
                                      bf16* h_row, int lane, int chunks, float (&v)[kMaxChunks][8]) {
  float sum = 0.0f;
#pragma unroll
  for (int c = 0; c < kMaxChunks; ++c) {
    if (c >= chunks) break;
    unpack8(xv[c], v[c]);
    if (residual) {
      float rf[8];
      unpack8(rv[c], rf);
      uint4 hv;
      bf16* hb = reinterpret_cast<bf16*>(&hv);
#pragma unroll
      for (int k = 0; k < 8; ++k) {
        v[c][k] = round_bf16(__fadd_rn(v[c][k], rf[k]));
        hb[k] = to_bf16(v[c][k]);
      }
      *reinterpret_cast<uint4*>(h_row + c * kChunk + lane * 8) = hv;
    }
#pragma unroll
    for (int k = 0; k < 8; ++k) sum = __fadd_rn(sum, v[c][k]);
  }
  return sum;
}

// The row's mean (from the lane's sum) and variance, then a_row = the normalised, scaled and shifted h.
__device__ __forceinline__ void normalize(const float (&v)[kMaxChunks][8], float sum, const bf16* w, const bf16* b,
                                          bf16* a_row, int64_t n, float eps, int lane, int chunks) {
  const float mean = warp_reduce(sum, SumOp{}) / static_cast<float>(n);
  float sq = 0.0f;
#pragma unroll
  for (int c = 0; c < kMaxChunks; ++c) {
    if (c >= chunks) break;
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      const float d = __fsub_rn(v[c][k], mean);
      sq = __fadd_rn(sq, __fmul_rn(d, d));
    }
  }
  const float var = warp_reduce(sq, SumOp{}) / static_cast<float>(n);
  const float2 norm = scale_shift(mean, var, eps);
  const float rstd = norm.x, shift = norm.y;
#pragma unroll
  for (int c = 0; c < kMaxChunks; ++c) {
    if (c >= chunks) break;
    const int64_t i = c * kChunk + lane * 8;
    float wf[8], bfv[8];
    unpack8(*reinterpret_cast<const uint4*>(w + i), wf);
    unpack8(*reinterpret_cast<const uint4*>(b + i), bfv);
    uint4 av;
    bf16* ab = reinterpret_cast<bf16*>(&av);
#pragma unroll
    for (int k = 0; k < 8; ++k) {
      const float y = __fadd_rn(__fmul_rn(v[c][k], rstd), shift);
      ab[k] = to_bf16(__fadd_rn(__fmul_rn(y, wf[k]), bfv[k]));
    }
    *reinterpret_cast<uint4*>(a_row + i) = av;
  }
}

}  // namespace music3::ops::warp_row
