#include "engine/ops/cuda/cublaslt_gemm.h"

#include <cstdint>

#include "engine/ops/cuda/cublas_handle.h"

namespace music3::ops {

uint32_t alignment_bytes(const void* p) {
  const auto a = reinterpret_cast<uintptr_t>(p);
  uint32_t align = 256;
  while (align > 1 && a % align != 0) align /= 2;
  return align;
}

LtGemm::LtGemm(const MatmulBTArgs& p, size_t workspace_bytes) : p_(p) {
  const int64_t m = p.a.shape[0], k = p.a.shape[1], n = p.b.shape[0];
  const char* what = "matmul_bt (cuda): cublasLt descriptors";
  try {
    check_cublas(cublasLtMatmulDescCreate(&op_, CUBLAS_COMPUTE_32F, CUDA_R_32F), what);
    const cublasOperation_t ta = CUBLAS_OP_T, tb = CUBLAS_OP_N;
    check_cublas(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSA, &ta, sizeof ta), what);
    check_cublas(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_TRANSB, &tb, sizeof tb), what);
    if (p.bias.data) {
      const cublasLtEpilogue_t epilogue = CUBLASLT_EPILOGUE_BIAS;
      const cudaDataType_t bias_type = CUDA_R_16BF;
      const void* bias = p.bias.data;
      check_cublas(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_EPILOGUE, &epilogue, sizeof epilogue),
                   what);
      check_cublas(cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_BIAS_POINTER, &bias, sizeof bias), what);
      check_cublas(
          cublasLtMatmulDescSetAttribute(op_, CUBLASLT_MATMUL_DESC_BIAS_DATA_TYPE, &bias_type, sizeof bias_type), what);
    }
    check_cublas(cublasLtMatrixLayoutCreate(&la_, CUDA_R_16BF, uint64_t(k), uint64_t(n), k), what);
    check_cublas(cublasLtMatrixLayoutCreate(&lb_, CUDA_R_16BF, uint64_t(k), uint64_t(m), k), what);
    check_cublas(cublasLtMatrixLayoutCreate(&ld_, CUDA_R_16BF, uint64_t(n), uint64_t(m), n), what);
    check_cublas(cublasLtMatmulPreferenceCreate(&pref_), what);
    check_cublas(cublasLtMatmulPreferenceSetAttribute(pref_, CUBLASLT_MATMUL_PREF_MAX_WORKSPACE_BYTES,
                                                      &workspace_bytes, sizeof workspace_bytes),
                 what);
    const uint32_t schemes = CUBLASLT_REDUCTION_SCHEME_MASK & ~uint32_t(CUBLASLT_REDUCTION_SCHEME_OUTPUT_TYPE);
    check_cublas(cublasLtMatmulPreferenceSetAttribute(pref_, CUBLASLT_MATMUL_PREF_REDUCTION_SCHEME_MASK, &schemes,
                                                      sizeof schemes),
                 what);
    const std::pair<cublasLtMatmulPreferenceAttributes_t, const void*> aligned[] = {
        {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_A_BYTES, p.b.data},
        {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_B_BYTES, p.a.data},
        {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_C_BYTES, p.out.data},
        {CUBLASLT_MATMUL_PREF_MIN_ALIGNMENT_D_BYTES, p.out.data}};
    for (const auto& [attr, ptr] : aligned) {
      const uint32_t bytes = alignment_bytes(ptr);
      check_cublas(cublasLtMatmulPreferenceSetAttribute(pref_, attr, &bytes, sizeof bytes), what);
    }
  } catch (...) {
    release();
    throw;
  }
}

LtGemm::~LtGemm() { release(); }

void LtGemm::release() {
  if (pref_) cublasLtMatmulPreferenceDestroy(pref_);
  if (ld_) cublasLtMatrixLayoutDestroy(ld_);
  if (lb_) cublasLtMatrixLayoutDestroy(lb_);
  if (la_) cublasLtMatrixLayoutDestroy(la_);
  if (op_) cublasLtMatmulDescDestroy(op_);
  pref_ = nullptr;
  ld_ = lb_ = la_ = nullptr;
  op_ = nullptr;
}

std::vector<cublasLtMatmulAlgo_t> LtGemm::candidates(cublasLtHandle_t h, int n) const {
  std::vector<cublasLtMatmulHeuristicResult_t> found(static_cast<size_t>(n));
  int count = 0;
  check_cublas(cublasLtMatmulAlgoGetHeuristic(h, op_, la_, lb_, ld_, ld_, pref_, n, found.data(), &count),
               "matmul_bt (cuda): cublasLtMatmulAlgoGetHeuristic");
  std::vector<cublasLtMatmulAlgo_t> out;
  for (int i = 0; i < count; ++i)
    if (found[size_t(i)].state == CUBLAS_STATUS_SUCCESS) out.push_back(found[size_t(i)].algo);
  return out;
}

void LtGemm::run(cublasLtHandle_t h, const cublasLtMatmulAlgo_t& algo, void* workspace, size_t bytes,
                 cudaStream_t stream, void* out) const {
  const float alpha = 1.0f, beta = 0.0f;
  void* d = out ? out : p_.out.data;
  check_cublas(cublasLtMatmul(h, op_, &alpha, p_.b.data, la_, p_.a.data, lb_, &beta, d, ld_, d, ld_, &algo, workspace,
                              bytes, stream),
               "matmul_bt (cuda): cublasLtMatmul");
}

}  // namespace music3::ops
