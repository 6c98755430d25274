// matmul_bt_swiglu on CUDA: gemv_bt.cuh with SwigluRows as the activation source, so the
// GEMV's prologue computes silu_and_mul's stored values (the same expression as
// silu_and_mul.cu) for its K slice and the [M, I] product never reaches memory. Any M:
// rows beyond 4 run in groups of 4, each group reading b again. The sums have the order
// gemv_bt.cuh states, fixed by K alone, which is matmul_bt's order for M <= 4, so the bits
// equal silu_and_mul then matmul_bt there (an M > 4 matmul_bt goes to cuBLAS).
// Cost: every block of the persistent grid computes the SiLU of the whole [M, I] (its K
// slice covers all of I), one expf and one IEEE division per value per block, after
// pdl_wait. On the H200 (scripts/gpu-perf-probe, gate_up GEMV + down projection in a graph)
// that made it slower than silu_and_mul + matmul_bt: 43.2 vs 41.6 us at M = 2, 53.5 vs
// 46.6 us at M = 4; the depth arm therefore issues the two unfused ops.
#include "engine/ops/cuda/cuda_providers.h"
#include "engine/ops/cuda/gemv_bt.cuh"
#include "engine/ops/ops.h"

namespace music3::ops {

void matmul_bt_swiglu_cuda(const Queue& q, const void* args) {
  const auto& p = *static_cast<const MatmulBTSwigluArgs*>(args);
  const int64_t inner = p.b.shape[1];
  const gemv::SwigluRows src{p.gate_up.as<const bf16>(), inner};
  const bool vectorizable = inner % gemv::kChunk == 0 && gemv::aligned16(src.gate_up);
  gemv::gemv_bt("matmul_bt_swiglu", src, vectorizable, p.b.as<const bf16>(), p.out.as<bf16>(),
                static_cast<int>(p.gate_up.shape[0]), p.b.shape[0], inner, stream_of(q));
}

}  // namespace music3::ops
