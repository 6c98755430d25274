// conv_transpose1d on CUDA: one cuBLAS GEMM per batch (strided batched) writes the bf16 columns
// cols[Cout*K, L] = W^T . x (f32 compute, one rounding), then col2im_kernel gathers, per output sample, the
// columns of the taps k = (t + pad) mod stride, + stride, ... in ascending order, rounding every addition to
// bf16, and adds the bias with one more rounding. Row-major cols[Cout*K, L] is column-major [L, Cout*K] =
// x^T [L, Cin] . W [Cin, Cout*K] (W row-major [Cin, Cout*K] read transposed).
#include <climits>
#include <stdexcept>

#include "engine/core/bf16.h"
#include "engine/ops/cuda/cublas_handle.h"
#include "engine/ops/cuda/cuda_providers.h"
#include "engine/ops/cuda/launch.h"
#include "engine/ops/vocoder_ops.h"

namespace music3::ops {
namespace {

constexpr int kThreads = 256;

__global__ void col2im_kernel(const bf16* __restrict__ cols, const bf16* __restrict__ bias, bf16* __restrict__ out,
                              int64_t cout, int64_t taps, int64_t len, int64_t l_out, int stride, int pad,
                              int64_t total) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t t = i % l_out, bc = i / l_out, co = bc % cout, b = bc / cout;
    const int64_t u = t + pad;
    const bf16* c = cols + (b * cout + co) * taps * len;
    float acc = 0.0f;
    for (int64_t k = u % stride; k < taps && k <= u; k += stride) {
      const int64_t l = (u - k) / stride;
      if (l < len) acc = round_bf16(acc + to_f32(c[k * len + l]));
    }
    out[i] = to_bf16(acc + to_f32(bias[co]));
  }
}

}  // namespace

void conv_transpose1d_cuda(const Queue& q, const void* args) {
  const auto& p = *static_cast<const ConvTranspose1dArgs*>(args);
  const int64_t batch = p.x.shape[0], cin = p.x.shape[1], len = p.x.shape[2];
  const int64_t cout = p.w.shape[1], taps = p.w.shape[2], l_out = p.out.shape[2];
  if (len > INT_MAX || cout * taps > INT_MAX || cin > INT_MAX || batch > INT_MAX)
    throw std::invalid_argument("conv_transpose1d (cuda): dimensions beyond cuBLAS's int range: x " + p.x.describe());
  const cudaStream_t stream = stream_of(q);
  const float one = 1.0f, zero = 0.0f;
  with_cublas(stream, [&](cublasHandle_t h) {
    check_cublas(cublasGemmStridedBatchedEx(
                     h, CUBLAS_OP_N, CUBLAS_OP_T, static_cast<int>(len), static_cast<int>(cout * taps),
                     static_cast<int>(cin), &one, p.x.data, CUDA_R_16BF, static_cast<int>(len), cin * len, p.w.data,
                     CUDA_R_16BF, static_cast<int>(cout * taps), 0, &zero, p.cols.data, CUDA_R_16BF,
                     static_cast<int>(len), cout * taps * len, static_cast<int>(batch), CUBLAS_COMPUTE_32F,
                     CUBLAS_GEMM_DEFAULT),
                 "conv_transpose1d (cuda): cublasGemmStridedBatchedEx");
  });
  const int64_t total = batch * cout * l_out;
  col2im_kernel<<<grid_for(total, kThreads), kThreads, 0, stream>>>(p.cols.as<const bf16>(), p.bias.as<const bf16>(),
                                                                     p.out.as<bf16>(), cout, taps, len, l_out, p.stride,
                                                                     p.pad, total);
  check_launch("conv_transpose1d col2im");
}

}  // namespace music3::ops
