// bf16 storage type and its conversions.
// Contract: to_bf16() rounds an f32 to the nearest bf16, ties to even, exactly as
// torch's c10::BFloat16 does (NaN becomes the quiet NaN 0x7FC0 with the input's sign
// dropped, ±inf stays ±inf, overflow rounds to ±inf, denormals round like any other
// value). to_f32() is exact. Both are usable from host and device code.
// Thread-safety: pure functions: thread-safe.
#pragma once
#include <cstdint>
#include <cstring>

#if defined(__CUDACC__)
#define MUSIC3_HD __host__ __device__ __forceinline__
#else
#define MUSIC3_HD inline
#endif

namespace music3 {

struct bf16 {
  uint16_t bits = 0;
};

MUSIC3_HD uint32_t f32_bits(float f) {
#if defined(__CUDA_ARCH__)
  return __float_as_uint(f);
#else
  uint32_t u;
  std::memcpy(&u, &f, sizeof u);
  return u;
#endif
}

MUSIC3_HD float f32_from_bits(uint32_t u) {
#if defined(__CUDA_ARCH__)
  return __uint_as_float(u);
#else
  float f;
  std::memcpy(&f, &u, sizeof f);
  return f;
#endif
}

MUSIC3_HD bf16 to_bf16(float f) {
  uint32_t u = f32_bits(f);
  if ((u & 0x7FFFFFFFu) > 0x7F800000u) return bf16{0x7FC0};  // NaN
  uint32_t rounding_bias = 0x7FFFu + ((u >> 16) & 1u);
  return bf16{static_cast<uint16_t>((u + rounding_bias) >> 16)};
}

MUSIC3_HD float to_f32(bf16 b) { return f32_from_bits(static_cast<uint32_t>(b.bits) << 16); }

// Round an f32 through bf16 and back: the value a bf16 rounding point produces.
MUSIC3_HD float round_bf16(float f) { return to_f32(to_bf16(f)); }

}  // namespace music3
