// bf16 values from the bytes of a mapped file: a safetensors data section need not be aligned for its dtype (the
// header length is not required to be a multiple of 8), so a loader never reads the mapping through a float* or
// bf16*. bf16_from_f32_bytes rounds n F32 values (nearest, ties to even: to_bf16); bf16_from_bf16_bytes copies n.
// Thread-safety: pure functions over caller-owned buffers.
#pragma once
#include <cstdint>
#include <cstring>

#include "engine/core/bf16.h"

namespace music3 {

inline void bf16_from_f32_bytes(const void* bytes, int64_t n, bf16* out) {
  const auto* p = static_cast<const unsigned char*>(bytes);
  for (int64_t i = 0; i < n; ++i) {
    float f;
    std::memcpy(&f, p + i * 4, 4);
    out[i] = to_bf16(f);
  }
}

inline void bf16_from_bf16_bytes(const void* bytes, int64_t n, bf16* out) {
  if (n > 0) std::memcpy(out, bytes, size_t(n) * sizeof(bf16));
}

}  // namespace music3
