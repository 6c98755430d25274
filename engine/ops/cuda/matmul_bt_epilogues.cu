// matmul_bt's fused epilogues (ops.h) on CUDA, each the GEMV's fast path (gemv_bt.cuh, the sums of
// cuda.matmul_bt.gemv, and of cuda.matmul_bt.gemv.packed where that takes the shape) with a tail run by the block that
// finishes last (last_arrival.cuh), so the bits of the two kernels each replaces, in one launch. Both are opt-in.
// cuda.matmul_bt.gemv.norm_rope: the qk_norm_rope epilogue (qk_norm_rope_tail.cuh, cuda.qk_norm_rope's arithmetic);
// it takes the LM's q|k|v projection: heads of D = 128.
// cuda.matmul_bt.gemv.add_norm: the add_rms_norm epilogue (add_rms_norm_tail.cuh, cuda.add_rms_norm's arithmetic);
// it takes the LM's and the depth's o and down projections: N <= 4096, x of the rows' shape (no broadcast).
// Both: M <= 2, K % 8 == 0 and K <= 12288, aligned a, b and out, an arrivals count; the packed kernel where
// cuda.matmul_bt.gemv.packed's shape test passes the plain call, whether or not that provider is enabled (the packed
// and unpacked kernels give the same bits). Every other call goes to the entry point's two ops.
#include "engine/ops/cuda/add_rms_norm_tail.cuh"
#include "engine/ops/cuda/cuda_providers.h"
#include "engine/ops/cuda/gemv_bt.cuh"
#include "engine/ops/cuda/qk_norm_rope_tail.cuh"
#include "engine/ops/lm_ops.h"
#include "engine/ops/ops.h"

namespace music3::ops {
namespace {

bool gemv_operands_fit(const MatmulBTArgs& p) {
  const int64_t k = p.a.shape[1];
  return p.arrivals.data && p.a.shape[0] <= 2 && k % gemv::kChunk == 0 && k <= gemv::kFastMaxKNarrow &&
         aligned16(p.a.data) && aligned16(p.b.data) && aligned16(p.out.data);
}

// The product's fast launch for M rows (1 or 2) with `tail`: the packed kernel where the packed provider's shape test
// passes the plain call, else the kernel of cuda.matmul_bt.gemv.
template <class Tail>
void launch_with_tail(const MatmulBTArgs& p, const Tail& tail, cudaStream_t stream) {
  const int64_t k = p.a.shape[1], n = p.b.shape[0];
  const gemv::PlainRows src{p.a.as<const bf16>(), k};
  const int rows = static_cast<int>(p.a.shape[0]);
  const bf16* w = p.b.as<const bf16>();
  bf16* out = p.out.as<bf16>();
  const MatmulBTArgs plain{p.a, p.b, p.out, {}};
  if (matmul_bt_gemv_packed_supports(&plain))
    return gemv::gemv_bt_packed("matmul_bt", src, w, out, rows, n, k, stream, tail);
  if (rows == 1) return gemv::launch_fast_r<1>("matmul_bt", src, w, out, rows, n, k, stream, tail);
  gemv::launch_fast_r<2>("matmul_bt", src, w, out, rows, n, k, stream, tail);
}

}  // namespace

bool matmul_bt_norm_rope_supports(const void* args) {
  const auto& p = *static_cast<const MatmulBTArgs*>(args);
  return p.norm_rope && gemv_operands_fit(p) && p.norm_rope->q_norm.shape[0] == gemv::kNormRopeDim;
}

void matmul_bt_norm_rope_cuda(const Queue& q, const void* args) {
  const auto& p = *static_cast<const MatmulBTArgs*>(args);
  const QkNormRopeArgs& nr = *p.norm_rope;
  const gemv::QkNormRopeTail tail{nr.q_norm.as<const bf16>(), nr.k_norm.as<const bf16>(), nr.cos.as<const bf16>(),
                                  nr.sin.as<const bf16>(), nr.pos.as<const int32_t>(), p.arrivals.as<int>(),
                                  nr.heads, nr.heads + nr.kv_heads, nr.batch, static_cast<int>(nr.cos.shape[1]),
                                  static_cast<int>(nr.cos.shape[0]), nr.eps};
  launch_with_tail(p, tail, stream_of(q));
}

bool matmul_bt_add_norm_supports(const void* args) {
  const auto& p = *static_cast<const MatmulBTArgs*>(args);
  return p.add_norm && gemv_operands_fit(p) && p.b.shape[0] <= 256 * gemv::kAddNormBatch &&
         p.add_norm->x.shape == p.out.shape;
}

void matmul_bt_add_norm_cuda(const Queue& q, const void* args) {
  const auto& p = *static_cast<const MatmulBTArgs*>(args);
  const AddRmsNormArgs& an = *p.add_norm;
  const gemv::AddRmsNormTail tail{an.x.as<const bf16>(), an.w.as<const bf16>(), an.h_out.as<bf16>(),
                                  an.a_out.as<bf16>(), p.arrivals.as<int>(), an.eps};
  launch_with_tail(p, tail, stream_of(q));
}

}  // namespace music3::ops
