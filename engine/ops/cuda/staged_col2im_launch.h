// The staged col2im alone: the second half of cuda.conv_transpose1d.staged (conv_transpose1d_staged.cu), after the
// columns GEMM. Its own entry so that a gate can run the kernel in a process without cuBLAS: compute-sanitizer's
// racecheck fails on cuBLAS's GEMMs ("failed to handle a hardware exception", then an illegal address at the next
// cudaFree; sessions 31 and 33), so op_staged_col2im_cuda_racecheck feeds it uploaded columns instead.
#pragma once
#include <cstdint>

#include "engine/core/bf16.h"
#include "engine/core/queue.h"

namespace music3::ops {

// cols [batch, len, cout * 2 stride] channels-last ([co][k] innermost), bias [cout], out [batch, l_out, cout], all
// on q's device; cout a multiple of 8 whose plan fits (conv_transpose1d_staged_supports), 16-byte aligned pointers.
struct StagedCol2imCall {
  const bf16* cols;
  const bf16* bias;
  bf16* out;
  int64_t batch, len, l_out, cout;
  int stride, pad;
};

// Enqueues the kernel on q's stream (no synchronization).
void staged_col2im_cuda(const Queue& q, const StagedCol2imCall& c);

}  // namespace music3::ops
