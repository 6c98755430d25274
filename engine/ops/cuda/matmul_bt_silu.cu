// cuda.matmul_bt_silu.gemv: matmul_bt_silu for the GEMV's fast shapes (M <= 4, K % 8 == 0, K <= 8192, or 12288 for
// M <= 2, 16-byte aligned a and b) as one kernel: gemv_bt.cuh's fast kernel with its PAIRED epilogue, each gate and
// up column summed in matmul_bt's GEMV order and combined by silu_and_mul's arithmetic (silu_mul.cuh), so the bits of
// cuda.matmul_bt.gemv then cuda.silu_and_mul; gate_up is not written. Why: the LM's and the depth stage's gate_up
// projection is followed by a silu_and_mul launch whose own work is tiny (2 x 12,288 values in the LM): one kernel
// boundary less per layer on the step's critical path.
// cuda.matmul_bt_silu.gemv.l2_ahead (opt-in, priority 2): the same kernel asking its next kL2AheadBytes of weight rows
// per block into L2 before pdl_wait() (gemv_bt.cuh), so the same bits.
#include "engine/ops/cuda/cuda_providers.h"
#include "engine/ops/cuda/gemv_bt.cuh"
#include "engine/ops/ops.h"

namespace music3::ops {

bool matmul_bt_silu_gemv_supports(const void* args) {
  const auto& p = *static_cast<const MatmulBtSiluArgs*>(args);
  const int64_t m = p.a.shape[0], k = p.a.shape[1];
  return m <= 4 && k % gemv::kChunk == 0 && k <= (m <= 2 ? gemv::kFastMaxKNarrow : gemv::kFastMaxK) &&
         aligned16(p.a.data) && aligned16(p.b.data);
}

namespace {

template <bool L2_AHEAD>
void silu_gemv(const MatmulBtSiluArgs& p, cudaStream_t stream) {
  const int64_t k = p.a.shape[1];
  gemv::gemv_bt_silu<L2_AHEAD>("matmul_bt_silu", gemv::PlainRows{p.a.as<const bf16>(), k}, p.b.as<const bf16>(),
                               p.out.as<bf16>(), static_cast<int>(p.a.shape[0]), p.b.shape[0], k, stream);
}

}  // namespace

void matmul_bt_silu_gemv_cuda(const Queue& q, const void* args) {
  silu_gemv<false>(*static_cast<const MatmulBtSiluArgs*>(args), stream_of(q));
}

void matmul_bt_silu_gemv_l2_cuda(const Queue& q, const void* args) {
  silu_gemv<true>(*static_cast<const MatmulBtSiluArgs*>(args), stream_of(q));
}

}  // namespace music3::ops
