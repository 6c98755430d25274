// cuda.matmul_bt.gemv.norm_rope (opt-in): matmul_bt with its qk_norm_rope epilogue (ops.h) as one launch, the
// GEMV's fast path (gemv_bt.cuh, the sums of cuda.matmul_bt.gemv) with the tail of qk_norm_rope_tail.cuh (the
// arithmetic of cuda.qk_norm_rope), so the bits of the two kernels it replaces. It takes the LM's decode call: M <= 2,
// K % 8 == 0 and K <= 8192, heads of D = 128, 16-byte aligned a, b and out, and the arrivals count; every other call
// goes to the entry point's two ops.
#include "engine/ops/cuda/cuda_providers.h"
#include "engine/ops/cuda/gemv_bt.cuh"
#include "engine/ops/cuda/qk_norm_rope_tail.cuh"
#include "engine/ops/lm_ops.h"
#include "engine/ops/ops.h"

namespace music3::ops {

bool matmul_bt_norm_rope_supports(const void* args) {
  const auto& p = *static_cast<const MatmulBTArgs*>(args);
  if (matmul_bt_is_plain(p) || !p.arrivals.data) return false;
  const int64_t k = p.a.shape[1];
  return p.a.shape[0] <= 2 && k % gemv::kChunk == 0 && k <= gemv::kFastMaxK &&
         p.norm_rope->q_norm.shape[0] == gemv::kNormRopeDim && aligned16(p.a.data) && aligned16(p.b.data) &&
         aligned16(p.out.data);
}

void matmul_bt_norm_rope_cuda(const Queue& q, const void* args) {
  const auto& p = *static_cast<const MatmulBTArgs*>(args);
  const QkNormRopeArgs& nr = *p.norm_rope;
  const int64_t k = p.a.shape[1];
  const gemv::QkNormRopeTail tail{nr.q_norm.as<const bf16>(), nr.k_norm.as<const bf16>(), nr.cos.as<const bf16>(),
                                  nr.sin.as<const bf16>(), nr.pos.as<const int32_t>(), p.arrivals.as<int>(),
                                  nr.heads, nr.heads + nr.kv_heads, nr.batch, static_cast<int>(nr.cos.shape[1]),
                                  static_cast<int>(nr.cos.shape[0]), nr.eps};
  const gemv::PlainRows src{p.a.as<const bf16>(), k};
  const int rows = static_cast<int>(p.a.shape[0]);
  const bf16* w = p.b.as<const bf16>();
  bf16* out = p.out.as<bf16>();
  const int64_t n = p.b.shape[0];
  if (rows == 1)
    return gemv::launch_fast_r<1, gemv::PlainRows, gemv::QkNormRopeTail, false>("matmul_bt", src, w, out, rows, n, k,
                                                                               stream_of(q), tail);
  gemv::launch_fast_r<2, gemv::PlainRows, gemv::QkNormRopeTail, false>("matmul_bt", src, w, out, rows, n, k,
                                                                      stream_of(q), tail);
}

}  // namespace music3::ops
