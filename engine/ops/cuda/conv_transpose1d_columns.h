// The GEMM half of conv_transpose1d on CUDA, shared by its two providers (conv_transpose1d.cu: cuBLAS + col2im;
// conv_transpose1d_staged.cu: the staged gather): writes the bf16 columns p.cols from p.x and p.w (one cuBLAS GEMM,
// f32 compute, one rounding per column), in [B, Cout*K, L] for channels-first and [B, L, Cout*K] for channels-last
// activations, the tap innermost in each row of Cout*K. Throws std::invalid_argument naming x when a dimension is
// beyond cuBLAS's int range.
#pragma once
#include "engine/core/queue.h"
#include "engine/ops/vocoder_ops.h"

namespace music3::ops {
void conv_transpose1d_columns(const Queue& q, const ConvTranspose1dArgs& p);
}  // namespace music3::ops
