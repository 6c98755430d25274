// conv1d on CUDA for tap-major weights (ConvWeightLayout::TapMajor) or OutTapIn [Cout, K, Cin] ones (tap k's
// [Cout, Cin] matrix starts at w + k Cin with row stride K Cin, so the implicit-GEMM provider's staging serves the
// shapes it declines: 1x1 convs, channel counts off its alignment), as K cuBLAS GEMMs into an f32 accumulator: the
// input is copied into the zero-padded xpad
// scratch, acc starts at the bias, each tap k adds W_k [Cout, Cin] . xpad[:, k*dilation : k*dilation + Tout]
// (cublasGemmStridedBatchedEx over the batch, bf16 inputs, f32 output and compute, beta 1), and one kernel rounds
// acc to bf16. Row-major acc[Cout, Tout] is column-major acc^T [Tout, Cout] = xpad_shift^T [Tout, Cin] . W_k^T.
// A 1x1 conv takes the same path: a GEMM straight into a bf16 `out` pre-filled with the bias (beta 1) is not one
// rounding, since cuBLAS may split K and round each partial sum to bf16 (on the H200, session 19: 96 -> 96 channels,
// 400 positions, 247 ulp worst against the f64 reference, 71 % exact; the op gate's 1x1 case at 96 channels).
// Channels-last activations (ActLayout::ChannelsLast, [B, T, C]): row-major acc[Tout, Cout] is column-major
// acc^T [Cout, Tout] = W_k [Cout, Cin] . xpad_shift^T [Cin, Tout] (W_k read transposed), xpad padded along T with
// the channels kept innermost.
// Narrow outputs (Cout <= kNarrowMaxOut: the vocoder's conv_out) go to the direct kernel of conv1d_narrow.cu
// instead, where its staging fits in shared memory: no scratch, one read of x.
#include <climits>
#include <stdexcept>

#include "engine/core/bf16.h"
#include "engine/ops/cuda/conv1d_bias.h"
#include "engine/ops/cuda/conv1d_narrow.h"
#include "engine/ops/cuda/cublas_handle.h"
#include "engine/ops/cuda/cuda_providers.h"
#include "engine/ops/cuda/launch.h"
#include "engine/ops/vocoder_ops.h"

namespace music3::ops {
namespace {

constexpr int kThreads = 256;

// Rows of t_in samples of `inner` values each ([B Cin][T] with inner 1, or [B][T][Cin] with inner Cin) padded
// along T by `pad` zero samples on both sides.
__global__ void pad_kernel(const bf16* __restrict__ x, bf16* __restrict__ xpad, int64_t t_in, int64_t pad,
                           int64_t inner, int64_t total) {
  const int64_t row_len = (t_in + 2 * pad) * inner;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t row = i / row_len, rem = i % row_len, j = rem / inner - pad, c = rem % inner;
    xpad[i] = (j >= 0 && j < t_in) ? x[(row * t_in + j) * inner + c] : bf16{0};
  }
}

__device__ __forceinline__ void put(float& o, bf16 b) { o = to_f32(b); }
__device__ __forceinline__ void put(bf16& o, bf16 b) { o = b; }

// out[i] = bias[(i / step) % cout] (conv1d_bias.h), into f32 or bf16.
template <typename Out>
__global__ void bias_fill_kernel(const bf16* __restrict__ bias, Out* __restrict__ out, int64_t cout, int64_t step,
                                 int64_t total) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    put(out[i], bias[(i / step) % cout]);
}

__global__ void round_kernel(const float* __restrict__ acc, bf16* __restrict__ out, int64_t total) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    out[i] = to_bf16(acc[i]);
}

}  // namespace

void conv1d_fill_bias(const bf16* bias, bf16* out, int64_t cout, int64_t step, int64_t total, cudaStream_t stream) {
  bias_fill_kernel<<<grid_for(total, kThreads), kThreads, 0, stream>>>(bias, out, cout, step, total);
  check_launch("conv1d bias (bf16)");
}

bool conv1d_cublas_supports(const void* args) {
  const auto& p = *static_cast<const Conv1dArgs*>(args);
  return conv1d_is_plain(p) && (p.layout == ConvWeightLayout::TapMajor || p.layout == ConvWeightLayout::OutTapIn);
}

void conv1d_cuda(const Queue& q, const void* args) {
  const auto& p = *static_cast<const Conv1dArgs*>(args);
  if (conv1d_narrow(p, stream_of(q))) return;
  const ActAxes act = act_axes(p.act);
  const bool last = p.act == ActLayout::ChannelsLast;
  const int64_t batch = p.x.shape[0], cin = p.x.shape[act.channels], t_in = p.x.shape[act.time];
  const ConvWeightAxes axes = conv_weight_axes(p.layout);
  const int64_t taps = p.w.shape[axes.taps], cout = p.w.shape[axes.out], t_out = p.out.shape[act.time];
  const int64_t t_pad = t_in + 2 * p.pad;
  // Tap k's weight matrix: its first element and its row stride (cuBLAS's ldb).
  const bool tap_major = p.layout == ConvWeightLayout::TapMajor;
  const int64_t w_tap_step = tap_major ? cout * cin : cin, w_ld = tap_major ? cin : taps * cin;
  if (t_pad > INT_MAX || cout > INT_MAX || w_ld > INT_MAX || batch > INT_MAX || batch * t_out > INT_MAX)
    throw std::invalid_argument("conv1d (cuda): dimensions beyond cuBLAS's int range: x " + p.x.describe());
  const auto i = [](int64_t v) { return static_cast<int>(v); };
  const cudaStream_t stream = stream_of(q);
  const int64_t out_total = batch * cout * t_out, bias_step = last ? 1 : t_out;
  const float one = 1.0f;
  const int64_t pad_total = batch * cin * t_pad;
  pad_kernel<<<grid_for(pad_total, kThreads), kThreads, 0, stream>>>(p.x.as<const bf16>(), p.xpad.as<bf16>(), t_in,
                                                                      p.pad, last ? cin : 1, pad_total);
  check_launch("conv1d pad");
  bias_fill_kernel<<<grid_for(out_total, kThreads), kThreads, 0, stream>>>(p.bias.as<const bf16>(), p.acc.as<float>(),
                                                                            cout, bias_step, out_total);
  check_launch("conv1d bias");
  with_cublas(stream, [&](cublasHandle_t h) {
    for (int64_t k = 0; k < taps; ++k) {
      const bf16* w_k = p.w.as<const bf16>() + k * w_tap_step;
      if (last)
        check_cublas(cublasGemmStridedBatchedEx(h, CUBLAS_OP_T, CUBLAS_OP_N, i(cout), i(t_out), i(cin), &one, w_k,
                                                CUDA_R_16BF, i(w_ld), 0, p.xpad.as<const bf16>() + k * p.dilation * cin,
                                                CUDA_R_16BF, i(cin), t_pad * cin, &one, p.acc.as<float>(), CUDA_R_32F,
                                                i(cout), t_out * cout, i(batch), CUBLAS_COMPUTE_32F,
                                                CUBLAS_GEMM_DEFAULT),
                     "conv1d channels-last (cuda): cublasGemmStridedBatchedEx");
      else
        check_cublas(cublasGemmStridedBatchedEx(h, CUBLAS_OP_N, CUBLAS_OP_N, i(t_out), i(cout), i(cin), &one,
                                                p.xpad.as<const bf16>() + k * p.dilation, CUDA_R_16BF, i(t_pad),
                                                cin * t_pad, w_k, CUDA_R_16BF, i(w_ld), 0, &one, p.acc.as<float>(),
                                                CUDA_R_32F, i(t_out), cout * t_out, i(batch), CUBLAS_COMPUTE_32F,
                                                CUBLAS_GEMM_DEFAULT),
                     "conv1d (cuda): cublasGemmStridedBatchedEx");
    }
  });
  round_kernel<<<grid_for(out_total, kThreads), kThreads, 0, stream>>>(p.acc.as<const float>(), p.out.as<bf16>(),
                                                                        out_total);
  check_launch("conv1d round");
}

}  // namespace music3::ops
