// The sm90 conv1d kernels of one tile shape, as the provider (conv1d_cutlass_sm90.cu) sees them: each tile's
// kernels are compiled in a translation unit of their own (conv1d_cutlass_sm90_n{96,192,128}.cu, from the templates
// of conv1d_cutlass_sm90.cuh), so the three build in parallel. Each tile has one kernel per epilogue (bias; bias
// then the residual), picked from the call's Conv1dArgs.
#pragma once
#include <cuda_runtime.h>

#include "engine/ops/vocoder_ops.h"

namespace music3::ops {

struct Sm90ConvKernels {
  bool (*can_implement)(const Conv1dArgs& p);  // CUTLASS's can_implement() for this call (host only, no launch)
  void (*run)(const Conv1dArgs& p, cudaStream_t stream, int sm_count);  // throws naming the call when CUTLASS refuses
};

// Tiles (M output positions x N output channels x K input channels per tap): 128 x 96 x 32, 128 x 192 x 64 and
// 128 x 128 x 64.
extern const Sm90ConvKernels kSm90ConvN96, kSm90ConvN192, kSm90ConvN128;

}  // namespace music3::ops
