// bf16 values from the bytes of a mapped file: a safetensors data section need not be aligned for its dtype (the
// header length is not required to be a multiple of 8), so a loader never reads the mapping through a float* or
// bf16*. bf16_from_f32_bytes rounds n F32 values (nearest, ties to even: to_bf16); bf16_from_bf16_bytes copies n;
// first_nonfinite finds the lowest index of an inf or NaN among n bf16 values (-1 when there is none).
// The rounding and the search split large arrays over the machine's cores (parallel_for: every element is handled
// by one call, so the values and the index found do not depend on the thread count). They are a checkpoint load's
// per-element work: the first touch of a mapped weight file, whose page faults the split also spreads.
// Thread-safety: pure functions over caller-owned buffers.
#pragma once
#include <cstdint>
#include <cstring>

#include "engine/core/bf16.h"

namespace music3 {

void bf16_from_f32_bytes(const void* bytes, int64_t n, bf16* out);
int64_t first_nonfinite(const bf16* values, int64_t n);

inline void bf16_from_bf16_bytes(const void* bytes, int64_t n, bf16* out) {
  if (n > 0) std::memcpy(out, bytes, size_t(n) * sizeof(bf16));
}

}  // namespace music3
