// One cuBLASLt product in matmul_bt's form, out[M, N] = bf16( a[M, K] . b[N, K]^T (+ bias[N]) ), seen column-major
// as out^T[N, M] = b^T . a (b a column-major [K, N] matrix, lda = K; a [K, M], ldb = K): bf16 operands and output,
// f32 compute and scale; with a bias the BIAS epilogue (bf16 bias on D's rows, joining the f32 accumulator before
// the one rounding: the addmm form); the operands' actual alignments (up to 256 bytes) declared to the heuristic, so
// every candidate it returns accepts these pointers; split-K partial sums never reduced in bf16 (the reduced-
// precision ban of cublas_handle.h, for cuBLASLt), so every candidate accumulates in f32.
// Contract: LtGemm(p, workspace_bytes) builds the descriptors (throws naming the failing cuBLAS call);
// candidates(h, n) returns up to n heuristic algorithms, the heuristic's best first (empty: none);
// run(h, algo, workspace, bytes, stream) enqueues the product into p.out, or into `out` when given (same shape).
// Thread-safety: an LtGemm is one call's; the handle is used under with_cublaslt's lock.
#pragma once
#include <cublasLt.h>
#include <cuda_runtime_api.h>

#include <vector>

#include "engine/ops/ops.h"

namespace music3::ops {

class LtGemm {
 public:
  LtGemm(const MatmulBTArgs& p, size_t workspace_bytes);
  ~LtGemm();
  LtGemm(const LtGemm&) = delete;
  LtGemm& operator=(const LtGemm&) = delete;

  std::vector<cublasLtMatmulAlgo_t> candidates(cublasLtHandle_t h, int n) const;
  void run(cublasLtHandle_t h, const cublasLtMatmulAlgo_t& algo, void* workspace, size_t bytes, cudaStream_t stream,
           void* out = nullptr) const;

 private:
  void release();
  const MatmulBTArgs& p_;
  cublasLtMatmulDesc_t op_ = nullptr;
  cublasLtMatrixLayout_t la_ = nullptr, lb_ = nullptr, ld_ = nullptr;
  cublasLtMatmulPreference_t pref_ = nullptr;
};

uint32_t alignment_bytes(const void* p);  // the largest power of two up to 256 that divides the address

}  // namespace music3::ops
