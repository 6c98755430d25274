// One cuDNN handle per CUDA device, created on first use and kept for the process (cuDNN builds only).
// Contract: with_cudnn(stream, fn) runs fn(handle) with the current device's handle bound to `stream`, under a
// lock (binding and enqueueing are one step, so threads sharing a handle cannot swap each other's streams); the
// first call on a device creates the handle in relaxed capture mode, so it may come during a graph capture.
// check_cudnn() throws std::runtime_error naming the call site and cuDNN's error string.
#pragma once
#include <cuda_runtime_api.h>
#include <cudnn.h>

#include <functional>

namespace music3::ops {

void check_cudnn(cudnnStatus_t status, const char* what);
void with_cudnn(cudaStream_t stream, const std::function<void(cudnnHandle_t)>& fn);

}  // namespace music3::ops
