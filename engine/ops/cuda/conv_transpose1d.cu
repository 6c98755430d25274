// conv_transpose1d on CUDA: one cuBLAS GEMM per batch (strided batched) writes the bf16 columns
// cols[Cout*K, L] = W^T . x (f32 compute, one rounding), then col2im_kernel gathers, per output sample, the
// columns of the taps k = (t + pad) mod stride, + stride, ... in ascending order, rounding every addition to
// bf16, and adds the bias with one more rounding. Row-major cols[Cout*K, L] is column-major [L, Cout*K] =
// x^T [L, Cin] . W [Cin, Cout*K] (W row-major [Cin, Cout*K] read transposed).
// Channels-last activations (ActLayout::ChannelsLast): one GEMM over all B L rows, row-major cols [B L, Cout*K]
// being column-major [Cout*K, B L] = W^T [Cout*K, Cin] (W row-major read as is) . x [Cin, B L]; the same col2im
// sums, read with the tap innermost. col2im's index arithmetic is 32-bit when every index fits int32.
// The GEMM (conv_transpose1d_columns) also feeds cuda.conv_transpose1d.staged (conv_transpose1d_staged.cu).
#include <climits>
#include <stdexcept>

#include "engine/core/bf16.h"
#include "engine/ops/cuda/cublas_handle.h"
#include "engine/ops/cuda/conv_transpose1d_columns.h"
#include "engine/ops/cuda/cuda_providers.h"
#include "engine/ops/cuda/launch.h"
#include "engine/ops/vocoder_ops.h"

namespace music3::ops {
namespace {

constexpr int kThreads = 256;

// out[i] for i < B Cout Lout in [B, Cout, Lout] order, or [B, Lout, Cout] when `last` (cols then [B, L, Cout*K]);
// Index: int32_t when every index formed fits (conv_transpose1d_cuda checks), else int64_t.
template <typename Index>
__global__ void col2im_kernel(const bf16* __restrict__ cols, const bf16* __restrict__ bias, bf16* __restrict__ out,
                              Index cout, Index taps, Index len, Index l_out, int stride, int pad, bool last,
                              Index total) {
  for (Index i = blockIdx.x * static_cast<Index>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<Index>(gridDim.x) * blockDim.x) {
    const Index co = last ? i % cout : i / l_out % cout, t = last ? i / cout % l_out : i % l_out;
    const Index b = i / (cout * l_out), u = t + pad;
    // Column (co, k) at sample l: c[k * k_step + l * l_step].
    const bf16* c = cols + (last ? b * len * cout + co : (b * cout + co) * len) * taps;
    const Index k_step = last ? 1 : len, l_step = last ? cout * taps : 1;
    float acc = 0.0f;
    for (Index k = u % stride; k < taps && k <= u; k += stride) {
      const Index l = (u - k) / stride;
      if (l < len) acc = round_bf16(acc + to_f32(c[k * k_step + l * l_step]));
    }
    out[i] = to_bf16(acc + to_f32(bias[co]));
  }
}

}  // namespace

void conv_transpose1d_columns(const Queue& q, const ConvTranspose1dArgs& p) {
  const ActAxes act = act_axes(p.act);
  const bool last = p.act == ActLayout::ChannelsLast;
  const int64_t batch = p.x.shape[0], cin = p.x.shape[act.channels], len = p.x.shape[act.time];
  const int64_t cout = p.w.shape[1], taps = p.w.shape[2];
  if (batch * len > INT_MAX || cout * taps > INT_MAX || cin > INT_MAX || batch > INT_MAX)
    throw std::invalid_argument("conv_transpose1d (cuda): dimensions beyond cuBLAS's int range: x " + p.x.describe());
  const auto i = [](int64_t v) { return static_cast<int>(v); };
  const float one = 1.0f, zero = 0.0f;
  with_cublas(stream_of(q), [&](cublasHandle_t h) {
    if (last)
      check_cublas(cublasGemmEx(h, CUBLAS_OP_N, CUBLAS_OP_N, i(cout * taps), i(batch * len), i(cin), &one, p.w.data,
                                CUDA_R_16BF, i(cout * taps), p.x.data, CUDA_R_16BF, i(cin), &zero, p.cols.data,
                                CUDA_R_16BF, i(cout * taps), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                   "conv_transpose1d channels-last (cuda): cublasGemmEx");
    else
      check_cublas(cublasGemmStridedBatchedEx(h, CUBLAS_OP_N, CUBLAS_OP_T, i(len), i(cout * taps), i(cin), &one,
                                              p.x.data, CUDA_R_16BF, i(len), cin * len, p.w.data, CUDA_R_16BF,
                                              i(cout * taps), 0, &zero, p.cols.data, CUDA_R_16BF, i(len),
                                              cout * taps * len, i(batch), CUBLAS_COMPUTE_32F, CUBLAS_GEMM_DEFAULT),
                   "conv_transpose1d (cuda): cublasGemmStridedBatchedEx");
  });
}

void conv_transpose1d_cuda(const Queue& q, const void* args) {
  const auto& p = *static_cast<const ConvTranspose1dArgs*>(args);
  const ActAxes act = act_axes(p.act);
  const bool last = p.act == ActLayout::ChannelsLast;
  const int64_t batch = p.x.shape[0], len = p.x.shape[act.time];
  const int64_t cout = p.w.shape[1], taps = p.w.shape[2], l_out = p.out.shape[act.time];
  conv_transpose1d_columns(q, p);
  const auto i = [](int64_t v) { return static_cast<int>(v); };
  const cudaStream_t stream = stream_of(q);
  const int64_t total = batch * cout * l_out;
  const unsigned grid = grid_for(total, kThreads);
  if (total + int64_t(grid) * kThreads <= INT_MAX && p.cols.numel() <= INT_MAX)  // every index fits int32
    col2im_kernel<int32_t><<<grid, kThreads, 0, stream>>>(p.cols.as<const bf16>(), p.bias.as<const bf16>(),
                                                          p.out.as<bf16>(), i(cout), i(taps), i(len), i(l_out), p.stride,
                                                          p.pad, last, i(total));
  else
    col2im_kernel<int64_t><<<grid, kThreads, 0, stream>>>(p.cols.as<const bf16>(), p.bias.as<const bf16>(),
                                                          p.out.as<bf16>(), cout, taps, len, l_out, p.stride, p.pad,
                                                          last, total);
  check_launch("conv_transpose1d col2im");
}

}  // namespace music3::ops
