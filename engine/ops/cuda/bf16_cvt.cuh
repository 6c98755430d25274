// to_bf16's contract (engine/core/bf16.h: round to nearest, ties to even; NaN becomes 0x7FC0; overflow to +-inf) by
// the hardware conversion `cvt.rn.bf16.f32` (sm_80 and later), device code only. The conversion rounds every non-NaN
// f32 as to_bf16 does; only its NaN (the canonical 0x7FFF) differs, so a NaN input is mapped to 0x7FC0 after it.
// Why: to_bf16's integer rounding costs about seven integer instructions, and a Snake that rounds three times per
// element is bound by the integer pipe on the H200 (cuda.snake.table at 1.8 TB/s, 43 % of the copy ceiling). The
// gate op_bf16_cvt_cuda compares it with to_bf16 on every one of the 2^32 f32 patterns.
#pragma once
#include <cstdint>

#include "engine/core/bf16.h"

namespace music3::ops {

__device__ __forceinline__ bf16 to_bf16_cvt(float f) {
  uint16_t r;
  asm("cvt.rn.bf16.f32 %0, %1;" : "=h"(r) : "f"(f));
  return bf16{f != f ? uint16_t{0x7FC0} : r};
}

// The rounding functor of a host-and-device kernel body: the contract's rounding, by the conversion.
struct CvtRounding {
  __device__ __forceinline__ bf16 operator()(float f) const { return to_bf16_cvt(f); }
};

}  // namespace music3::ops
