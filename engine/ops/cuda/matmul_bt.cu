// matmul_bt on CUDA: out[M, N] = bf16( sum_k f32(a[m, k]) * f32(b[n, k]) ), f32 accumulation.
// M <= 4 (decode): a memory-bound GEMV sweep. One warp per weight row n reads the
// row once, 16 bytes per lane per load (streamed past L1), kUnroll loads in flight,
// and multiplies each chunk into every activation row (small, cached in L1/L2). The
// lanes' partial sums meet in a warp butterfly; lane 0 writes the M outputs. A
// bf16 x bf16 product is exact in f32, so the fused multiply-add rounds exactly as
// a multiply then an add would. Rows whose K or pointers do not allow 16-byte loads
// take a scalar path of the same kernel.
// M > 4: cuBLAS (cublasGemmEx, bf16 in/out, CUBLAS_COMPUTE_32F) on a cached handle.
// The split is measured (H200, weights rotated past L2, median of 7 x 40 launches):
// at M = 1..4 this kernel runs within about 20 % of cuBLAS either way (faster at
// N = 1024 and M = 1, slower at N = 12288, M = 2: 33 vs 28 us); at M = 8 and 16 it
// is 2-5x slower than cuBLAS, whose time does not grow with M.
#include <climits>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "engine/core/bf16.h"
#include "engine/ops/cuda/cublas_handle.h"
#include "engine/ops/cuda/cuda_providers.h"
#include "engine/ops/cuda/launch.h"
#include "engine/ops/ops.h"

namespace music3::ops {
namespace {

constexpr int kWarpsPerBlock = 4;
constexpr int kUnroll = 4;
constexpr int kMaxGemvRows = 4;

__device__ __forceinline__ void unpack_bf16x8(const uint4& v, float (&f)[8]) {
  const uint32_t w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    f[2 * i] = __uint_as_float(w[i] << 16);
    f[2 * i + 1] = __uint_as_float(w[i] & 0xFFFF0000u);
  }
}

// acc[r] += dot(a[r, 8c .. 8c+7], weights) for every activation row r < rows.
template <int R>
__device__ __forceinline__ void accumulate_chunk(float (&acc)[R], const uint4& wv, const bf16* __restrict__ a,
                                                 int rows, int64_t k, int64_t c) {
  float wf[8];
  unpack_bf16x8(wv, wf);
#pragma unroll
  for (int r = 0; r < R; ++r) {
    if (r < rows) {
      float af[8];
      unpack_bf16x8(__ldg(reinterpret_cast<const uint4*>(a + r * k) + c), af);
#pragma unroll
      for (int j = 0; j < 8; ++j) acc[r] = __fmaf_rn(af[j], wf[j], acc[r]);
    }
  }
}

template <int R, bool kVector>
__global__ void __launch_bounds__(kWarpsPerBlock * 32)
    gemv_bt_kernel(const bf16* __restrict__ a, const bf16* __restrict__ b, bf16* __restrict__ out, int rows,
                   int64_t n_total, int64_t k) {
  const int lane = threadIdx.x % 32;
  const int64_t n = static_cast<int64_t>(blockIdx.x) * kWarpsPerBlock + threadIdx.x / 32;
  if (n >= n_total) return;
  const bf16* w = b + n * k;
  float acc[R];
#pragma unroll
  for (int r = 0; r < R; ++r) acc[r] = 0.0f;

  if constexpr (kVector) {
    const uint4* w16 = reinterpret_cast<const uint4*>(w);
    const int64_t chunks = k / 8;
    int64_t c = lane;
    for (; c + 32 * (kUnroll - 1) < chunks; c += 32 * kUnroll) {
      uint4 wv[kUnroll];
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) wv[u] = __ldcs(w16 + c + 32 * u);  // streamed: read once
#pragma unroll
      for (int u = 0; u < kUnroll; ++u) accumulate_chunk<R>(acc, wv[u], a, rows, k, c + 32 * u);
    }
    for (; c < chunks; c += 32) accumulate_chunk<R>(acc, __ldcs(w16 + c), a, rows, k, c);
  } else {
    for (int64_t i = lane; i < k; i += 32) {
      const float wf = to_f32(w[i]);
#pragma unroll
      for (int r = 0; r < R; ++r)
        if (r < rows) acc[r] = __fmaf_rn(to_f32(a[r * k + i]), wf, acc[r]);
    }
  }

#pragma unroll
  for (int r = 0; r < R; ++r)
    for (int o = 16; o >= 1; o /= 2) acc[r] += __shfl_xor_sync(0xFFFFFFFFu, acc[r], o);
  if (lane == 0) {
#pragma unroll
    for (int r = 0; r < R; ++r)
      if (r < rows) out[r * n_total + n] = to_bf16(acc[r]);
  }
}

template <int R>
void launch_gemv(const bf16* a, const bf16* b, bf16* out, int rows, int64_t n, int64_t k, bool vector,
                 cudaStream_t stream) {
  const auto blocks = static_cast<unsigned>((n + kWarpsPerBlock - 1) / kWarpsPerBlock);
  if (vector)
    gemv_bt_kernel<R, true><<<blocks, kWarpsPerBlock * 32, 0, stream>>>(a, b, out, rows, n, k);
  else
    gemv_bt_kernel<R, false><<<blocks, kWarpsPerBlock * 32, 0, stream>>>(a, b, out, rows, n, k);
}

bool aligned16(const void* p) { return reinterpret_cast<uintptr_t>(p) % 16 == 0; }

void gemv(const MatmulBTArgs& p, cudaStream_t stream) {
  const int rows = static_cast<int>(p.a.shape[0]);
  const int64_t k = p.a.shape[1], n = p.b.shape[0];
  const bf16* a = p.a.as<const bf16>();
  const bf16* b = p.b.as<const bf16>();
  bf16* out = p.out.as<bf16>();
  const bool vector = k % 8 == 0 && aligned16(a) && aligned16(b);
  if (rows <= 1) launch_gemv<1>(a, b, out, rows, n, k, vector, stream);
  else if (rows <= 2) launch_gemv<2>(a, b, out, rows, n, k, vector, stream);
  else launch_gemv<kMaxGemvRows>(a, b, out, rows, n, k, vector, stream);
  check_launch("matmul_bt");
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

void matmul_bt_cuda(const Queue& q, const void* args) {
  const auto& p = *static_cast<const MatmulBTArgs*>(args);
  if (p.a.shape[0] <= kMaxGemvRows)
    gemv(p, stream_of(q));
  else
    gemm_cublas(p, stream_of(q));
}

}  // namespace music3::ops
