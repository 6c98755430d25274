// The bf16 dot product of the CPU providers and the host reference math, with one fixed
// reduction order, so that any caller computing the same (a, b, K) gets the same bits.
// Contract: dot_bf16_f32(a, b, K) returns the f32 sum of f32(a[k]) * f32(b[k]), where
//   1. 16 lane partial sums: lane l accumulates k = l, l + 16, l + 32, ... below
//      K16 = K - K % 16, in increasing k, starting from +0;
//   2. the lanes are combined by a fixed pairwise tree: for s = 8, 4, 2, 1,
//      lane[l] = lane[l] + lane[l + s] for l < s;
//   3. the tail k = K16 .. K-1 is added to lane[0] in increasing k.
// A product of two bf16 values is exact in f32, so only the additions round, and
// the result does not depend on contraction (FMA) either. Header-only and inline so
// that gcc -O3 vectorises the lane loop (bf16 -> f32 is a 16-bit shift) without
// -march flags. Pure functions: thread-safe.
#pragma once
#include <cstdint>

#include "engine/core/bf16.h"

namespace music3 {

inline constexpr int kDotLanes = 16;

inline float dot_bf16_f32(const bf16* a, const bf16* b, int64_t K) {
  float lane[kDotLanes] = {};
  const int64_t k16 = K - K % kDotLanes;
  for (int64_t k = 0; k < k16; k += kDotLanes)
    for (int l = 0; l < kDotLanes; ++l) lane[l] += to_f32(a[k + l]) * to_f32(b[k + l]);
  for (int s = kDotLanes / 2; s >= 1; s /= 2)
    for (int l = 0; l < s; ++l) lane[l] += lane[l + s];
  float acc = lane[0];
  for (int64_t k = k16; k < K; ++k) acc += to_f32(a[k]) * to_f32(b[k]);
  return acc;
}

// The same dot product for up to kDotRows activation rows at once, each row given
// in f32 (bf16 widened exactly, so the bits equal dot_bf16_f32's for every row):
// out[m] = dot(x + m * ldx, w) for m < M. The weight chunk is widened once and used
// by every row, which is what makes a bf16 GEMV sweep cheaper than an f32 one.
inline constexpr int kDotRows = 4;

template <int M>
inline void dot_rows_f32_bf16_fixed(const float* x, int64_t ldx, const bf16* w, int64_t K, float* out) {
  float lane[M][kDotLanes] = {};
  const int64_t k16 = K - K % kDotLanes;
  for (int64_t k = 0; k < k16; k += kDotLanes) {
    float wf[kDotLanes];
    for (int l = 0; l < kDotLanes; ++l) wf[l] = to_f32(w[k + l]);
    for (int m = 0; m < M; ++m)
      for (int l = 0; l < kDotLanes; ++l) lane[m][l] += x[m * ldx + k + l] * wf[l];
  }
  for (int m = 0; m < M; ++m) {
    for (int s = kDotLanes / 2; s >= 1; s /= 2)
      for (int l = 0; l < s; ++l) lane[m][l] += lane[m][l + s];
    float acc = lane[m][0];
    for (int64_t k = k16; k < K; ++k) acc += x[m * ldx + k] * to_f32(w[k]);
    out[m] = acc;
  }
}

inline void dot_rows_f32_bf16(const float* x, int M, int64_t ldx, const bf16* w, int64_t K, float* out) {
  for (int m0 = 0; m0 < M; m0 += kDotRows) {
    const float* xm = x + m0 * ldx;
    switch (M - m0 < kDotRows ? M - m0 : kDotRows) {
      case 1: dot_rows_f32_bf16_fixed<1>(xm, ldx, w, K, out + m0); break;
      case 2: dot_rows_f32_bf16_fixed<2>(xm, ldx, w, K, out + m0); break;
      case 3: dot_rows_f32_bf16_fixed<3>(xm, ldx, w, K, out + m0); break;
      default: dot_rows_f32_bf16_fixed<4>(xm, ldx, w, K, out + m0); break;
    }
  }
}

}  // namespace music3
