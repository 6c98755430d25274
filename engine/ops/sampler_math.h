// Bit-reproducible scalar pieces of the CFG top-k sampler (cfg_topk_sample), shared by the CPU and CUDA
// providers so that, given the same logits, both arms draw the same code.
// Contract: every function here is a fixed sequence of IEEE-754 f32 operations
// (add, mul, div, fmaf, bit manipulation), so host code built with
// -ffp-contract=off and device code built with --fmad=false give identical bits.
// No libm call is used: glibc's and CUDA's expf/logf differ in the last place.
// Thread-safety: pure functions: thread-safe.
#pragma once
#include <cstdint>

#include "engine/core/bf16.h"
#include "engine/core/counter_rng.h"

#if defined(__CUDACC__)
#define MUSIC3_FMAF(a, b, c) fmaf(a, b, c)
#else
#include <cmath>
#define MUSIC3_FMAF(a, b, c) std::fmaf(a, b, c)
#endif

namespace music3::sampler {

// The counter-based draws come from engine/core/counter_rng.h.
using music3::philox4x32_10;
using music3::U32x4;

// Natural log of u in (0, 1], |error| ~ 1e-7 relative, from bits and a polynomial.
MUSIC3_HD float det_log(float u) {
  uint32_t b = f32_bits(u);
  int e = static_cast<int>((b >> 23) & 0xFFu) - 127;
  float m = f32_from_bits((b & 0x007FFFFFu) | 0x3F800000u);  // [1, 2)
  if (m > 1.41421356f) {
    m = m * 0.5f;
    e += 1;
  }
  float s = (m - 1.0f) / (m + 1.0f);
  float s2 = s * s;
  float poly = MUSIC3_FMAF(s2, 1.0f / 11.0f, 1.0f / 9.0f);
  poly = MUSIC3_FMAF(s2, poly, 1.0f / 7.0f);
  poly = MUSIC3_FMAF(s2, poly, 1.0f / 5.0f);
  poly = MUSIC3_FMAF(s2, poly, 1.0f / 3.0f);
  poly = MUSIC3_FMAF(s2, poly, 1.0f);
  float ln_m = 2.0f * s * poly;
  return MUSIC3_FMAF(static_cast<float>(e), 0.693147180559945f, ln_m);
}

// e^x for x <= 0 (softmax after max-subtraction); 0 below the f32 normal range.
MUSIC3_HD float det_exp_nonpos(float x) {
  if (!(x > -87.0f)) return 0.0f;  // also catches -inf and NaN
  float k = static_cast<float>(static_cast<int>(x * 1.44269504f - 0.5f));  // round toward -inf-ish
  float r = MUSIC3_FMAF(k, -0.693145752f, x);                            // Cody-Waite hi
  r = MUSIC3_FMAF(k, -1.42860677e-06f, r);                               // Cody-Waite lo
  float p = MUSIC3_FMAF(r, 1.0f / 720.0f, 1.0f / 120.0f);
  p = MUSIC3_FMAF(r, p, 1.0f / 24.0f);
  p = MUSIC3_FMAF(r, p, 1.0f / 6.0f);
  p = MUSIC3_FMAF(r, p, 0.5f);
  p = MUSIC3_FMAF(r, p, 1.0f);
  p = MUSIC3_FMAF(r, p, 1.0f);
  int ki = static_cast<int>(k);
  return p * f32_from_bits(static_cast<uint32_t>(ki + 127) << 23);
}

// Exp(1) draw i keyed by (seed, frame, step): -ln(u), u = (23 random bits + 0.5) / 2^23.
// 23 bits keep bits + 0.5 exact in f32, so u lies strictly inside (0, 1) and E > 0
// (with 24 bits, 2^24 - 0.5 rounds up to 2^24: u = 1 and E = -0).
MUSIC3_HD float exp1_draw(uint64_t seed, uint64_t frame, uint32_t step, uint32_t i) {
  U32x4 ctr{{i >> 2, step, static_cast<uint32_t>(frame), static_cast<uint32_t>(frame >> 32)}};
  U32x4 r = philox4x32_10(ctr, static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32));
  uint32_t bits = r.v[i & 3u] >> 9;
  float u = (static_cast<float>(bits) + 0.5f) * (1.0f / 8388608.0f);
  return -det_log(u);
}

// Guided logit in the reference's order: u + (c - u) * scale, then nan_to_num
// (NaN -> -1e9, +inf -> 1e9, -inf -> -1e9).
MUSIC3_HD float guided_logit(bf16 cond, bf16 uncond, float scale) {
  float c = to_f32(cond), u = to_f32(uncond);
  float d = c - u;
  float g = u + d * scale;
  if (g != g) return -1e9f;
  if (g > 3.0e38f) return 1e9f;
  if (g < -3.0e38f) return -1e9f;
  return g;
}

MUSIC3_HD bool is_finite_f32(float v) { return (f32_bits(v) & 0x7F800000u) != 0x7F800000u; }

}  // namespace music3::sampler
