// matmul_bt on CUDA, two providers: out[M, N] = bf16( sum_k f32(a[m, k]) * f32(b[n, k]) ),
// f32 accumulation.
// cuda.matmul_bt.gemv (priority 1, supports M <= 4, decode): the memory-bound GEMV of
// gemv_bt.cuh (its fast path when K % 8 == 0, K <= 8192 and both operands are 16-byte
// aligned, launched under PDL; otherwise its scalar fallback); gemv_bt.cuh states each
// path's summation order.
// cuda.matmul_bt.cublas (priority 0, any shape without a bias): cuBLAS (cublasGemmEx, bf16 in/out,
// CUBLAS_COMPUTE_32F) on a cached handle.
// cuda.matmul_bt.cublaslt (priority 2, a bias): cublasLtMatmul with CUBLASLT_EPILOGUE_BIAS (bf16 bias, compute
// and scale f32): the bias joins the f32 accumulator in the epilogue and the sum is rounded once, the addmm
// form; the first heuristic algorithm for the shape (no split-K reduction in bf16), on the handle's fixed
// workspace.
#include <climits>
#include <stdexcept>

#include "engine/ops/cuda/cublas_handle.h"
#include "engine/ops/cuda/cuda_providers.h"
#include "engine/ops/cuda/gemv_bt.cuh"
#include "engine/ops/ops.h"

namespace music3::ops {
namespace {

constexpr int kMaxGemvRows = 4;

void matmul_gemv(const MatmulBTArgs& p, cudaStream_t stream) {
  const int64_t k = p.a.shape[1];
  const gemv::PlainRows src{p.a.as<const bf16>(), k};
  const bool vectorizable = k % gemv::kChunk == 0 && gemv::aligned16(src.a);
  gemv::gemv_bt("matmul_bt", src, vectorizable, p.b.as<const bf16>(), p.out.as<bf16>(),
                static_cast<int>(p.a.shape[0]), p.b.shape[0], k, stream);
}

// Row-major out[M,N] = a[M,K] . b[N,K]^T is column-major out^T[N,M] = b^T . a with
// b seen as a column-major [K,N] matrix (lda = K) and a as [K,M] (ldb = K).
void gemm_cublas(const MatmulBTArgs& p, cudaStream_t stream) {
  const int64_t m = p.a.shape[0], k = p.a.shape[1], n = p.b.shape[0];
  if (m > INT_MAX || n > INT_MAX || k > INT_MAX)
    throw std::invalid_argument("matmul_bt (cuda): dimensions beyond cuBLAS's int range: a " + p.a.describe() +
                                ", b " + p.b.describe());
  const float alpha = 1.0f, beta = 0.0f;
  with_cublas(stream, [&](cublasHandle_t h) {
    check_cublas(cublasGemmEx(h, CUBLAS_OP_T, CUBLAS_OP_N, static_cast<int>(n), static_cast<int>(m),
                              static_cast<int>(k), &alpha, p.b.data, CUDA_R_16BF, static_cast<int>(k), p.a.data,
                              CUDA_R_16BF, static_cast<int>(k), &beta, p.out.data, CUDA_R_16BF, static_cast<int>(n),
                              CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                 "matmul_bt (cuda): cublasGemmEx");
  });
}

// The same column-major view as gemm_cublas, the bias on D's rows (the N axis).
void gemm_cublaslt(const MatmulBTArgs& p, cudaStream_t stream) {
  const int64_t m = p.a.shape[0], k = p.a.shape[1], n = p.b.shape[0];
  cublasLtMatmulDesc_t op = nullptr;
  cublasLtMatrixLayout_t la = nullptr, lb = nullptr, ld = nullptr;
  cublasLtMatmulPreference_t pref = nullptr;
  auto release = [&] {
    if (pref) cublasLtMatmulPreferenceDestroy(pref);
    if (ld) cublasLtMatrixLayoutDestroy(ld);
    if (lb) cublasLtMatrixLayoutDestroy(lb);
    if (la) cublasLtMatrixLayoutDestroy(la);
    if (op) cublasLtMatmulDescDestroy(op);
  };
  try {
    const char* what = "matmul_bt (cuda): cublasLt descriptors";
    check_cublas(cublasLtMatmulDescCreate(&op, CUBLAS_COMPUTE_32F, CUDA_R_32F), what);
    const cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    const cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_BIAS;
    const cudaDataType_t bias_type = CUDA_R_16BF;
    const void* bias = p.bias.data;
    check_cublas(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta), what);
    check_cublas(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb), what);
    check_cublas(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof epilogue), what);
    check_cublas(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias), what);
    check_cublas(cublasLtMatmulDescSetAttribute(op, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bias_type, sizeof bias_type),
                 what);
    check_cublas(cublasLtMatrixLayoutCreate(&la, CUDA_R_16BF, uint64_t(k), uint64_t(n), k), what);
    check_cublas(cublasLtMatrixLayoutCreate(&lb, CUDA_R_16BF, uint64_t(k), uint64_t(m), k), what);
    check_cublas(cublasLtMatrixLayoutCreate(&ld, CUDA_R_16BF, uint64_t(n), uint64_t(m), n), what);
    const float alpha = 1.0f, beta = 0.0f;
    with_cublaslt(stream, [&](cublasLtHandle_t h, void* workspace, size_t bytes) {
      check_cublas(cublasLtMatmulPreferenceCreate(&pref), what);
      check_cublas(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES, &bytes,
                                                        sizeof bytes),
                   what);
      // A split-K partial sum is never reduced in bf16 (the handle's reduced-precision ban, for cuBLASLt).
      const uint32_t schemes = CUBLASLT_REDUCTION_SCHEME_MASK & ~uint32_t(CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE);
      check_cublas(cublasLtMatmulPreferenceSetAttribute(pref, CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK, &schemes,
                                                        sizeof schemes),
                   what);
      cublasLtMatmulHeuristicResult_t best{};
      int found = 0;
      check_cublas(cublasLtMatmulAlgoGetHeuristic(h, op, la, lb, ld, ld, pref, 1, &best, &found),
                   "matmul_bt (cuda): cublasLtMatmulAlgoGetHeuristic");
      if (found < 1)
        throw std::runtime_error("matmul_bt (cuda): cuBLASLt has no algorithm with a bias for a " + p.a.describe() +
                                 " x " + p.b.describe());
      check_cublas(cublasLtMatmul(h, op, &alpha, p.b.data, la, p.a.data, lb, &beta, p.out.data, ld, p.out.data, ld,
                                  &best.algo, workspace, bytes, stream),
                   "matmul_bt (cuda): cublasLtMatmul");
    });
  } catch (...) {
    release();
    throw;
  }
  release();
}

}  // namespace

bool matmul_bt_gemv_supports(const void* args) {
  const auto& p = *static_cast<const MatmulBTArgs*>(args);
  return p.a.shape[0] <= kMaxGemvRows && !p.bias.data;
}

bool matmul_bt_cublas_supports(const void* args) { return !static_cast<const MatmulBTArgs*>(args)->bias.data; }

bool matmul_bt_cublaslt_supports(const void* args) { return static_cast<const MatmulBTArgs*>(args)->bias.data; }

void matmul_bt_cublaslt_cuda(const Queue& q, const void* args) {
  gemm_cublaslt(*static_cast<const MatmulBTArgs*>(args), stream_of(q));
}

void matmul_bt_gemv_cuda(const Queue& q, const void* args) {
  matmul_gemv(*static_cast<const MatmulBTArgs*>(args), stream_of(q));
}

void matmul_bt_cublas_cuda(const Queue& q, const void* args) {
  gemm_cublas(*static_cast<const MatmulBTArgs*>(args), stream_of(q));
}

}  // namespace music3::ops
