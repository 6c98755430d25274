// conv1d on CUDA through cuDNN's convolution (cuDNN builds only): NCHW with H = 1, x [B, Cin, 1, T], the weights in
// torch's layout [Cout, Cin, 1, K] (ConvWeightLayout::OutInTap), out [B, Cout, 1, Tout]; bf16 data, f32 compute,
// tensor-op math, padding and dilation along W. No im2col and no padded copy: xpad is never touched.
// Bias: `out` is filled with the bias first (conv1d_fill_bias) and the convolution adds into it with beta = 1;
// cuDNN blends alpha * conv + beta * out in f32 and rounds once, so out = bf16(bias + sum), the contract's single
// rounding (the summation order is cuDNN's, like cuBLAS's on the other provider).
// Algorithm: per shape, once, cuDNN's own timing (cudnnFindConvolutionForwardAlgorithmEx, run into `out` before the
// bias is written, with the `acc` scratch as workspace) or, while the stream is being captured into a graph, its
// heuristic; either way the first successful choice among the GEMM and direct algorithms whose workspace fits in
// `acc` (FFT and Winograd change the arithmetic and are never taken). Choices are cached per shape, under a lock.
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <array>
#include <cstdint>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <tuple>

#include "engine/core/bf16.h"
#include "engine/ops/cuda/conv1d_bias.h"
#include "engine/ops/cuda/cuda_providers.h"
#include "engine/ops/cuda/cudnn_handle.h"
#include "engine/ops/cuda/launch.h"
#include "engine/ops/vocoder_ops.h"

namespace music3::ops {
namespace {

bool arithmetic_kept(cudnnConvolutionFwdAlgo_t a) {
  return a == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_GEMM || a == CUDNN_CONVOLUTION_FWD_ALGO_IMPLICIT_PRECOMP_GEMM ||
         a == CUDNN_CONVOLUTION_FWD_ALGO_GEMM || a == CUDNN_CONVOLUTION_FWD_ALGO_DIRECT;
}

// The descriptors of one call; destroyed with it.
struct Descriptors {
  cudnnTensorDescriptor_t x = nullptr, y = nullptr;
  cudnnFilterDescriptor_t w = nullptr;
  cudnnConvolutionDescriptor_t conv = nullptr;
  Descriptors() {
    check_cudnn(cudnnCreateTensorDescriptor(&x), "cudnnCreateTensorDescriptor");
    check_cudnn(cudnnCreateTensorDescriptor(&y), "cudnnCreateTensorDescriptor");
    check_cudnn(cudnnCreateFilterDescriptor(&w), "cudnnCreateFilterDescriptor");
    check_cudnn(cudnnCreateConvolutionDescriptor(&conv), "cudnnCreateConvolutionDescriptor");
  }
  ~Descriptors() {
    cudnnDestroyConvolutionDescriptor(conv);
    cudnnDestroyFilterDescriptor(w);
    cudnnDestroyTensorDescriptor(y);
    cudnnDestroyTensorDescriptor(x);
  }
  Descriptors(const Descriptors&) = delete;
  Descriptors& operator=(const Descriptors&) = delete;
};

struct Choice {
  cudnnConvolutionFwdAlgo_t algo;
  cudnnMathType_t math;
  size_t workspace;
};
using ShapeKey = std::tuple<int, int64_t, int64_t, int64_t, int64_t, int64_t, int, int>;  // device, B, Cin, T, Cout, K, d, pad

std::mutex& cache_mutex() {
  static std::mutex mu;
  return mu;
}
std::map<ShapeKey, Choice>& cache() {
  static std::map<ShapeKey, Choice> c;
  return c;
}

Choice first_usable(const cudnnConvolutionFwdAlgoPerf_t* perf, int n, size_t workspace_bytes, const std::string& shape) {
  for (int i = 0; i < n; ++i)
    if (perf[i].status == CUDNN_STATUS_SUCCESS && arithmetic_kept(perf[i].algo) && perf[i].memory <= workspace_bytes)
      return {perf[i].algo, perf[i].mathType, perf[i].memory};
  throw std::runtime_error("conv1d (cudnn): no GEMM or direct algorithm within " + std::to_string(workspace_bytes) +
                           " workspace bytes for " + shape);
}

}  // namespace

bool conv1d_cudnn_supports(const void* args) {
  const auto& p = *static_cast<const Conv1dArgs*>(args);
  return conv1d_is_plain(p) && p.layout == ConvWeightLayout::OutInTap && p.act == ActLayout::ChannelsFirst;
}

void conv1d_cudnn_cuda(const Queue& q, const void* args) {
  const auto& p = *static_cast<const Conv1dArgs*>(args);
  const int64_t batch = p.x.shape[0], cin = p.x.shape[1], t_in = p.x.shape[2];
  const int64_t cout = p.w.shape[0], taps = p.w.shape[2], t_out = p.out.shape[2];
  const std::string shape = "x " + p.x.describe() + ", w " + p.w.describe() + ", dilation " +
                            std::to_string(p.dilation) + ", pad " + std::to_string(p.pad);
  for (int64_t v : {batch, cin, t_in, cout, taps, t_out})
    if (v > INT32_MAX) throw std::invalid_argument("conv1d (cudnn): a dimension beyond cuDNN's int range: " + shape);
  const cudaStream_t stream = stream_of(q);
  Descriptors d;
  const auto i = [](int64_t v) { return static_cast<int>(v); };
  check_cudnn(cudnnSetTensor4dDescriptor(d.x, CUDNN_TENSOR_NCHW, CUDNN_DATA_BFLOAT16, i(batch), i(cin), 1, i(t_in)),
              "cudnnSetTensor4dDescriptor (x)");
  check_cudnn(cudnnSetTensor4dDescriptor(d.y, CUDNN_TENSOR_NCHW, CUDNN_DATA_BFLOAT16, i(batch), i(cout), 1, i(t_out)),
              "cudnnSetTensor4dDescriptor (out)");
  check_cudnn(cudnnSetFilter4dDescriptor(d.w, CUDNN_DATA_BFLOAT16, CUDNN_TENSOR_NCHW, i(cout), i(cin), 1, i(taps)),
              "cudnnSetFilter4dDescriptor");
  check_cudnn(cudnnSetConvolution2dDescriptor(d.conv, 0, p.pad, 1, 1, 1, p.dilation, CUDNN_CROSS_CORRELATION,
                                              CUDNN_DATA_FLOAT),
              "cudnnSetConvolution2dDescriptor");
  check_cudnn(cudnnSetConvolutionMathType(d.conv, CUDNN_TENSOR_OP_MATH), "cudnnSetConvolutionMathType");
  std::array<int, 4> dims{};
  check_cudnn(cudnnGetConvolution2dForwardOutputDim(d.conv, d.x, d.w, &dims[0], &dims[1], &dims[2], &dims[3]),
              "cudnnGetConvolution2dForwardOutputDim");
  if (dims != std::array<int, 4>{i(batch), i(cout), 1, i(t_out)})
    throw std::logic_error("conv1d (cudnn): cuDNN's output shape differs from the op's for " + shape);

  int device = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice (conv1d cudnn)");
  const size_t workspace_bytes = p.acc.bytes();
  const ShapeKey key{device, batch, cin, t_in, cout, taps, p.dilation, p.pad};
  const float one = 1.0f;
  with_cudnn(stream, [&](cudnnHandle_t h) {
    Choice choice{};
    {
      std::lock_guard lock(cache_mutex());
      auto it = cache().find(key);
      if (it == cache().end()) {
        cudaStreamCaptureStatus capturing = cudaStreamCaptureStatusNone;
        check_cuda(cudaStreamIsCapturing(stream, &capturing), "cudaStreamIsCapturing (conv1d cudnn)");
        std::array<cudnnConvolutionFwdAlgoPerf_t, CUDNN_CONVOLUTION_FWD_ALGO_COUNT> perf{};
        int n = 0;
        if (capturing == cudaStreamCaptureStatusNone)
          check_cudnn(cudnnFindConvolutionForwardAlgorithmEx(h, d.x, p.x.data, d.w, p.w.data, d.conv, d.y, p.out.data,
                                                             static_cast<int>(perf.size()), &n, perf.data(),
                                                             p.acc.data, workspace_bytes),
                      "cudnnFindConvolutionForwardAlgorithmEx");
        else
          check_cudnn(cudnnGetConvolutionForwardAlgorithm_v7(h, d.x, d.w, d.conv, d.y, static_cast<int>(perf.size()),
                                                             &n, perf.data()),
                      "cudnnGetConvolutionForwardAlgorithm_v7");
        it = cache().emplace(key, first_usable(perf.data(), n, workspace_bytes, shape)).first;
      }
      choice = it->second;
    }
    check_cudnn(cudnnSetConvolutionMathType(d.conv, choice.math), "cudnnSetConvolutionMathType (chosen)");
    conv1d_fill_bias(p.bias.as<const bf16>(), p.out.as<bf16>(), cout, t_out, batch * cout * t_out, stream);
    check_cudnn(cudnnConvolutionForward(h, &one, d.x, p.x.data, d.w, p.w.data, d.conv, choice.algo, p.acc.data,
                                        choice.workspace, &one, d.y, p.out.data),
                "cudnnConvolutionForward");
  });
}

}  // namespace music3::ops
