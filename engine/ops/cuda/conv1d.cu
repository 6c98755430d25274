// conv1d on CUDA for tap-major weights (ConvWeightLayout::TapMajor) or OutTapIn [Cout, K, Cin] ones (tap k's
// [Cout, Cin] matrix starts at w + k Cin with row stride K Cin, so the implicit-GEMM provider's staging serves the
// shapes it declines: 1x1 convs, channel counts off its alignment), as K cuBLAS GEMMs into an f32 accumulator: the
// input is copied into the zero-padded xpad
// scratch, acc starts at the bias, each tap k adds W_k [Cout, Cin] . xpad[:, k*dilation : k*dilation + Tout]
// (cublasGemmStridedBatchedEx over the batch, bf16 inputs, f32 output and compute, beta 1), and one kernel rounds
// acc to bf16. Row-major acc[Cout, Tout] is column-major acc^T [Tout, Cout] = xpad_shift^T [Tout, Cin] . W_k^T.
// A 1x1 conv without padding is one GEMM straight into `out`, pre-filled with the bias (beta 1): cuBLAS blends
// beta * C in f32 and rounds once, the same single rounding, with no scratch traffic.
#include <climits>
#include <stdexcept>

#include "engine/core/bf16.h"
#include "engine/ops/cuda/conv1d_bias.h"
#include "engine/ops/cuda/cublas_handle.h"
#include "engine/ops/cuda/cuda_providers.h"
#include "engine/ops/cuda/launch.h"
#include "engine/ops/vocoder_ops.h"

namespace music3::ops {
namespace {

constexpr int kThreads = 256;

__global__ void pad_kernel(const bf16* __restrict__ x, bf16* __restrict__ xpad, int64_t t_in, int64_t pad,
                           int64_t total) {
  const int64_t t_pad = t_in + 2 * pad;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t row = i / t_pad, j = i % t_pad - pad;
    xpad[i] = (j >= 0 && j < t_in) ? x[row * t_in + j] : bf16{0};
  }
}

__global__ void bias_fill_kernel(const bf16* __restrict__ bias, float* __restrict__ acc, int64_t cout, int64_t t_out,
                                 int64_t total) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    acc[i] = to_f32(bias[(i / t_out) % cout]);
}

__global__ void bias_fill_bf16_kernel(const bf16* __restrict__ bias, bf16* __restrict__ out, int64_t cout,
                                      int64_t t_out, int64_t total) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    out[i] = bias[(i / t_out) % cout];
}

__global__ void round_kernel(const float* __restrict__ acc, bf16* __restrict__ out, int64_t total) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    out[i] = to_bf16(acc[i]);
}

}  // namespace

void conv1d_fill_bias(const bf16* bias, bf16* out, int64_t cout, int64_t t_out, int64_t total, cudaStream_t stream) {
  bias_fill_bf16_kernel<<<grid_for(total, kThreads), kThreads, 0, stream>>>(bias, out, cout, t_out, total);
  check_launch("conv1d bias (bf16)");
}

bool conv1d_cublas_supports(const void* args) {
  const ConvWeightLayout layout = static_cast<const Conv1dArgs*>(args)->layout;
  return layout == ConvWeightLayout::TapMajor || layout == ConvWeightLayout::OutTapIn;
}

void conv1d_cuda(const Queue& q, const void* args) {
  const auto& p = *static_cast<const Conv1dArgs*>(args);
  const int64_t batch = p.x.shape[0], cin = p.x.shape[1], t_in = p.x.shape[2];
  const ConvWeightAxes axes = conv_weight_axes(p.layout);
  const int64_t taps = p.w.shape[axes.taps], cout = p.w.shape[axes.out], t_out = p.out.shape[2];
  const int64_t t_pad = t_in + 2 * p.pad;
  // Tap k's weight matrix: its first element and its row stride (cuBLAS's ldb).
  const bool tap_major = p.layout == ConvWeightLayout::TapMajor;
  const int64_t w_tap_step = tap_major ? cout * cin : cin, w_ld = tap_major ? cin : taps * cin;
  if (t_pad > INT_MAX || cout > INT_MAX || w_ld > INT_MAX || batch > INT_MAX)
    throw std::invalid_argument("conv1d (cuda): dimensions beyond cuBLAS's int range: x " + p.x.describe());
  const cudaStream_t stream = stream_of(q);
  const float one = 1.0f;
  if (taps == 1 && p.pad == 0) {
    conv1d_fill_bias(p.bias.as<const bf16>(), p.out.as<bf16>(), cout, t_out, batch * cout * t_out, stream);
    with_cublas(stream, [&](cublasHandle_t h) {
      check_cublas(cublasGemmStridedBatchedEx(h, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(t_out), static_cast<int>(cout),
                                              static_cast<int>(cin), &one, p.x.data, CUDA_R_16BF, static_cast<int>(t_in),
                                              cin * t_in, p.w.data, CUDA_R_16BF, static_cast<int>(w_ld), 0, &one, p.out.data,
                                              CUDA_R_16BF, static_cast<int>(t_out), cout * t_out, static_cast<int>(batch),
                                              CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                   "conv1d 1x1 (cuda): cublasGemmStridedBatchedEx");
    });
    return;
  }
  const int64_t pad_total = batch * cin * t_pad, out_total = batch * cout * t_out;
  pad_kernel<<<grid_for(pad_total, kThreads), kThreads, 0, stream>>>(p.x.as<const bf16>(), p.xpad.as<bf16>(), t_in,
                                                                      p.pad, pad_total);
  check_launch("conv1d pad");
  bias_fill_kernel<<<grid_for(out_total, kThreads), kThreads, 0, stream>>>(p.bias.as<const bf16>(), p.acc.as<float>(),
                                                                            cout, t_out, out_total);
  check_launch("conv1d bias");
  with_cublas(stream, [&](cublasHandle_t h) {
    for (int64_t k = 0; k < taps; ++k)
      check_cublas(cublasGemmStridedBatchedEx(
                       h, CUBLAS_OP_N, CUBLAS_OP_N, static_cast<int>(t_out), static_cast<int>(cout), static_cast<int>(cin),
                       &one, p.xpad.as<const bf16>() + k * p.dilation, CUDA_R_16BF, static_cast<int>(t_pad), cin * t_pad,
                       p.w.as<const bf16>() + k * w_tap_step, CUDA_R_16BF, static_cast<int>(w_ld), 0, &one,
                       p.acc.as<float>(), CUDA_R_32F, static_cast<int>(t_out), cout * t_out, static_cast<int>(batch),
                       CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                   "conv1d (cuda): cublasGemmStridedBatchedEx");
  });
  round_kernel<<<grid_for(out_total, kThreads), kThreads, 0, stream>>>(p.acc.as<const float>(), p.out.as<bf16>(),
                                                                        out_total);
  check_launch("conv1d round");
}

}  // namespace music3::ops
