// cuda.matmul_bt.cublaslt (priority 2, a bias): cublasLtMatmul with CUBLASLT_EPILOGUE_BIAS (bf16 bias, compute and
// scale f32) through LtGemm (cublaslt_gemm.h): the bias joins the f32 accumulator in the epilogue and the sum is
// rounded once, the addmm form; the heuristic's first algorithm for the shape (no split-K reduction in bf16), on
// the handle's fixed workspace. cuda.matmul_bt.cublaslt.tuned (matmul_bt_tuned.cpp) times the heuristic's
// candidates instead, for M >= 5.
// Thread-safety: as with_cublaslt (cublas_handle.h).
#include <stdexcept>

#include "engine/ops/cuda/cublas_handle.h"
#include "engine/ops/cuda/cublaslt_gemm.h"
#include "engine/ops/cuda/cuda_providers.h"
#include "engine/ops/cuda/launch.h"

namespace music3::ops {

bool matmul_bt_cublaslt_supports(const void* args) { return static_cast<const MatmulBTArgs*>(args)->bias.data; }

void matmul_bt_cublaslt_cuda(const Queue& q, const void* args) {
  const auto& p = *static_cast<const MatmulBTArgs*>(args);
  const cudaStream_t stream = stream_of(q);
  with_cublaslt(stream, [&](cublasLtHandle_t h, void* workspace, size_t bytes) {
    const LtGemm gemm(p, bytes);
    const auto algos = gemm.candidates(h, 1);
    if (algos.empty())
      throw std::runtime_error("matmul_bt (cuda): cuBLASLt has no algorithm with a bias for a " + p.a.describe() +
                               " x " + p.b.describe());
    gemm.run(h, algos.front(), workspace, bytes, stream);
  });
}

}  // namespace music3::ops
