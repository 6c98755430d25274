#include "engine/ops/cuda/cudnn_handle.h"

#include <array>
#include <mutex>
#include <stdexcept>
#include <string>

#include "engine/core/cuda/cuda_backend.h"

namespace music3::ops {

void check_cudnn(cudnnStatus_t status, const char* what) {
  if (status != CUDNN_STATUS_SUCCESS)
    throw std::runtime_error(std::string("cudnn: ") + what + ": " + cudnnGetErrorString(status));
}

namespace {

constexpr int kMaxDevices = 64;

std::mutex& table_mutex() {
  static std::mutex mu;
  return mu;
}
std::array<cudnnHandle_t, kMaxDevices>& handles() {
  static std::array<cudnnHandle_t, kMaxDevices> h{};  // live for the process
  return h;
}

// cudnnCreate allocates; during a capture that is refused in thread-local mode, so it runs in relaxed mode.
cudnnHandle_t make_handle() {
  cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
  check_cuda(cudaThreadExchangeStreamCaptureMode(&mode), "cudaThreadExchangeStreamCaptureMode");
  cudnnHandle_t h = nullptr;
  const cudnnStatus_t status = cudnnCreate(&h);
  check_cuda(cudaThreadExchangeStreamCaptureMode(&mode), "cudaThreadExchangeStreamCaptureMode");
  check_cudnn(status, "cudnnCreate");
  return h;
}

}  // namespace

void with_cudnn(cudaStream_t stream, const std::function<void(cudnnHandle_t)>& fn) {
  int device = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice (cuDNN handle)");
  if (device < 0 || device >= kMaxDevices)
    throw std::runtime_error("cudnn: device ordinal " + std::to_string(device) + " beyond the handle table");
  std::lock_guard lock(table_mutex());
  cudnnHandle_t& h = handles()[static_cast<size_t>(device)];
  if (!h) h = make_handle();
  check_cudnn(cudnnSetStream(h, stream), "cudnnSetStream");
  fn(h);
}

}  // namespace music3::ops
