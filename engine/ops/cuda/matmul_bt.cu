// matmul_bt on CUDA, the GEMV and cuBLAS providers (the cuBLASLt ones: matmul_bt_cublaslt.cpp,
// matmul_bt_tuned.cpp): out[M, N] = bf16( sum_k f32(a[m, k]) * f32(b[n, k]) ),
// f32 accumulation.
// cuda.matmul_bt.gemv (priority 1, supports M <= 4, decode): the memory-bound GEMV of
// gemv_bt.cuh (its fast path when K % 8 == 0, K <= 8192 and both operands are 16-byte
// aligned, launched under PDL; otherwise its scalar fallback); gemv_bt.cuh states each
// path's summation order.
// cuda.matmul_bt.gemv.packed (priority 4; M <= 2, K in (10240, 12288], aligned: the LM's down projection):
// the same kernel with its activations held packed (gemv_bt.cuh), the same order, so the same bits.
// cuda.matmul_bt.gemv.l2_ahead and cuda.matmul_bt.gemv.packed.l2_ahead (opt-in, priorities 5 and 6: above every
// GEMV, the packed one first as without them): the same kernels asking their next kL2AheadBytes of weight rows per
// block into L2 before pdl_wait() (gemv_bt.cuh: L2_AHEAD), so the same bits.
// cuda.matmul_bt.cublas (priority 0, any shape without a bias): cuBLAS (cublasGemmEx, bf16 in/out,
// CUBLAS_COMPUTE_32F) on a cached handle.
#include <climits>
#include <stdexcept>

#include "engine/ops/cuda/cublas_handle.h"
#include "engine/ops/cuda/cuda_providers.h"
#include "engine/ops/cuda/gemv_bt.cuh"
#include "engine/ops/ops.h"

namespace music3::ops {
namespace {

constexpr int kMaxGemvRows = 4;

template <bool L2_AHEAD>
void matmul_gemv(const MatmulBTArgs& p, cudaStream_t stream) {
  const int64_t k = p.a.shape[1];
  const gemv::PlainRows src{p.a.as<const bf16>(), k};
  const bool vectorizable = k % gemv::kChunk == 0 && aligned16(src.a);
  gemv::gemv_bt<L2_AHEAD>("matmul_bt", src, vectorizable, p.b.as<const bf16>(), p.out.as<bf16>(),
                          static_cast<int>(p.a.shape[0]), p.b.shape[0], k, stream);
}

template <bool L2_AHEAD>
void matmul_gemv_packed(const MatmulBTArgs& p, cudaStream_t stream) {
  const int64_t k = p.a.shape[1];
  gemv::gemv_bt_packed<L2_AHEAD>("matmul_bt", gemv::PlainRows{p.a.as<const bf16>(), k}, p.b.as<const bf16>(),
                                 p.out.as<bf16>(), static_cast<int>(p.a.shape[0]), p.b.shape[0], k, stream);
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

}  // namespace

bool matmul_bt_gemv_supports(const void* args) {
  const auto& p = *static_cast<const MatmulBTArgs*>(args);
  return p.a.shape[0] <= kMaxGemvRows && !p.bias.data;
}

bool matmul_bt_gemv_packed_supports(const void* args) {
  const auto& p = *static_cast<const MatmulBTArgs*>(args);
  const int64_t k = p.a.shape[1];
  return p.a.shape[0] <= 2 && !p.bias.data && k % gemv::kChunk == 0 && k > gemv::kPackedMinK &&
         k <= gemv::kFastMaxKNarrow && aligned16(p.a.data) && aligned16(p.b.data);
}

void matmul_bt_gemv_packed_cuda(const Queue& q, const void* args) {
  matmul_gemv_packed<false>(*static_cast<const MatmulBTArgs*>(args), stream_of(q));
}

void matmul_bt_gemv_packed_l2_cuda(const Queue& q, const void* args) {
  matmul_gemv_packed<true>(*static_cast<const MatmulBTArgs*>(args), stream_of(q));
}

bool matmul_bt_cublas_supports(const void* args) { return !static_cast<const MatmulBTArgs*>(args)->bias.data; }

void matmul_bt_gemv_cuda(const Queue& q, const void* args) {
  matmul_gemv<false>(*static_cast<const MatmulBTArgs*>(args), stream_of(q));
}

void matmul_bt_gemv_l2_cuda(const Queue& q, const void* args) {
  matmul_gemv<true>(*static_cast<const MatmulBTArgs*>(args), stream_of(q));
}

void matmul_bt_cublas_cuda(const Queue& q, const void* args) {
  gemm_cublas(*static_cast<const MatmulBTArgs*>(args), stream_of(q));
}

}  // namespace music3::ops
