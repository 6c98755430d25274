// cuda.add_rms_norm_matmul_bt.gemv: add_rms_norm then matmul_bt (or matmul_bt_silu) as one kernel for the decode
// step's shapes (M <= 2 rows of x and r, no broadcast, K % 8 == 0, K <= 8192, 16-byte aligned x, r, w and b):
// gemv_bt.cuh's fast kernel on a NormedRows source (gemv_normed_rows.cuh), whose prologue computes add_rms_norm's
// values in its order and whose first column blocks write h_out, so the bits of cuda.add_rms_norm then
// cuda.matmul_bt.gemv (or cuda.matmul_bt_silu.gemv); a_out and gate_up are not written. Why: add_rms_norm's own
// kernel exposed 6.8 us per call on an H100 (491 us of a 5.5 ms LM step, 72 calls: reports/bench/lm/GAP.md), most
// of it a dependent launch's latency on two rows of work; the GEMV that follows already holds the rows it needs.
#include "engine/ops/cuda/cuda_providers.h"
#include "engine/ops/cuda/gemv_bt.cuh"
#include "engine/ops/cuda/gemv_normed_rows.cuh"
#include "engine/ops/ops.h"

namespace music3::ops {
namespace {

template <bool PAIRED>
void launch(const AddRmsNormMatmulArgs& p, cudaStream_t stream) {
  const int rows = static_cast<int>(p.h_out.shape[0]);
  const int64_t k = p.h_out.shape[1], n = p.b.shape[0];
  const gemv::NormedRows src{p.x.as<const bf16>(), p.r.as<const bf16>(), p.w.as<const bf16>(), p.h_out.as<bf16>(),
                             k, p.eps};
  const auto* w = p.b.as<const bf16>();
  auto* out = p.out.as<bf16>();
  if (rows == 1) return gemv::launch_fast_r<1, gemv::NormedRows, PAIRED, false>("add_rms_norm_matmul_bt", src, w, out,
                                                                               rows, n, k, stream);
  gemv::launch_fast_r<2, gemv::NormedRows, PAIRED, false>("add_rms_norm_matmul_bt", src, w, out, rows, n, k, stream);
}

}  // namespace

bool add_rms_norm_matmul_bt_gemv_supports(const void* args) {
  const auto& p = *static_cast<const AddRmsNormMatmulArgs*>(args);
  const int64_t m = p.h_out.shape[0], k = p.h_out.shape[1];
  return m <= gemv::kMaxNormedRows && p.x.shape[0] == m && p.r.shape[0] == m && k % gemv::kChunk == 0 &&
         k <= gemv::kFastMaxK && aligned16(p.x.data) && aligned16(p.r.data) && aligned16(p.w.data) &&
         aligned16(p.b.data);
}

void add_rms_norm_matmul_bt_gemv_cuda(const Queue& q, const void* args) {
  const auto& p = *static_cast<const AddRmsNormMatmulArgs*>(args);
  if (p.gate_up.data)
    launch<true>(p, stream_of(q));
  else
    launch<false>(p, stream_of(q));
}

}  // namespace music3::ops
