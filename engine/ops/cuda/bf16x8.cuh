// Eight bf16 moved as one 16-byte access, in host-and-device kernel bodies (staged_col2im.cuh, narrow_conv_staged.cuh):
// a vector load or store on the device; memcpy on the host, where reading bf16 through a uint4 pointer would break
// the aliasing rules the optimiser relies on. Pointers 16-byte aligned.
#pragma once
#if defined(__CUDACC__)
#include <vector_types.h>  // uint4: the device path's 16-byte accesses
#endif

#include <cstring>

#include "engine/core/bf16.h"

namespace music3::ops {

struct alignas(16) Bf16x8 {
  bf16 e[8];
};

MUSIC3_HD Bf16x8 load_bf16x8(const bf16* p) {
  Bf16x8 v;
#ifdef __CUDA_ARCH__
  *reinterpret_cast<uint4*>(&v) = *reinterpret_cast<const uint4*>(p);
#else
  std::memcpy(static_cast<void*>(&v), p, sizeof v);  // both trivially copyable
#endif
  return v;
}

MUSIC3_HD void store_bf16x8(bf16* p, const Bf16x8& v) {
#ifdef __CUDA_ARCH__
  *reinterpret_cast<uint4*>(p) = *reinterpret_cast<const uint4*>(&v);
#else
  std::memcpy(static_cast<void*>(p), &v, sizeof v);
#endif
}

}  // namespace music3::ops
