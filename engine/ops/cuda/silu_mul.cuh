// SiLU-and-mul of one element as silu_and_mul's contract (ops.h) rounds it, shared by cuda.silu_and_mul and the
// GEMV's paired epilogue (gemv_bt.cuh, matmul_bt_silu) so the two give the same bits:
// bf16( bf16(g / (1 + expf(-g))) * u ) for the bf16 values g and u (IEEE division; expf is CUDA's full-precision one).
// Device-side helper: no state.
#pragma once
#include "engine/core/bf16.h"

namespace music3::ops {

__device__ __forceinline__ bf16 silu_mul(float g, float u) { return to_bf16(round_bf16(g / (1.0f + expf(-g))) * u); }

}  // namespace music3::ops
