// relaxed_capture(fn): fn() with this thread's stream-capture mode set to relaxed, the previous mode restored after
// (also when fn throws). For CUDA set-up and side work (cudaMalloc, a handle, timing on a private stream) that may
// come while this thread captures a graph in thread-local mode, which refuses such calls: in relaxed mode they run
// at once and nothing of them enters the graph. Thread-safety: affects the calling thread only.
#pragma once
#include <cuda_runtime_api.h>

#include "engine/core/cuda/cuda_backend.h"

namespace music3::ops {

template <class Fn>
auto relaxed_capture(Fn fn) {
  cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
  check_cuda(cudaThreadExchangeStreamCaptureMode(&mode), "cudaThreadExchangeStreamCaptureMode");
  try {
    auto r = fn();
    check_cuda(cudaThreadExchangeStreamCaptureMode(&mode), "cudaThreadExchangeStreamCaptureMode");
    return r;
  } catch (...) {
    cudaThreadExchangeStreamCaptureMode(&mode);
    throw;
  }
}

}  // namespace music3::ops
