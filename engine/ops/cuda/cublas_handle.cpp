#include "engine/ops/cuda/cublas_handle.h"

#include <array>
#include <mutex>
#include <stdexcept>
#include <string>

#include "engine/core/cuda/cuda_backend.h"

namespace music3::ops {

void check_cublas(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string("cublas: ") + what + ": " + cublasGetStatusString(status));
}

namespace {

constexpr int kMaxDevices = 64;
constexpr size_t kWorkspaceBytes = size_t{32} << 20;  // cuBLAS's advice for Hopper

struct HandleTable {
  std::mutex mu;
  std::array<cublasHandle_t, kMaxDevices> handles{};
};

HandleTable& table() {
  static HandleTable t;  // handles and workspaces live for the process
  return t;
}

// A configured handle, or an exception (a half-made handle is never cached).
cublasHandle_t configure_handle() {
  cublasHandle_t h = nullptr;
  check_cublas(cublasCreate(&h), "cublasCreate");
  check_cublas(cublasSetMathMode(h, CUBLAS_MATH_DISALLOW_REDUCED_PRECISION_REDUCTION), "cublasSetMathMode");
  void* workspace = nullptr;
  check_cuda(cudaMalloc(&workspace, kWorkspaceBytes), "cudaMalloc (cuBLAS workspace)");
  check_cublas(cublasSetWorkspace(h, workspace, kWorkspaceBytes), "cublasSetWorkspace");
  return h;
}

// The first cuBLAS call on a device may come while this thread captures a graph (a provider that
// never ran before the capture, e.g. with the GEMV provider disabled). The handle's set-up calls
// (cudaMalloc) are refused in thread-local capture mode, so they run in relaxed mode, which
// lets them through without entering the graph; the thread's mode is restored afterwards.
cublasHandle_t make_handle() {
  cudaStreamCaptureMode mode = cudaStreamCaptureModeRelaxed;
  check_cuda(cudaThreadExchangeStreamCaptureMode(&mode), "cudaThreadExchangeStreamCaptureMode");
  try {
    cublasHandle_t h = configure_handle();
    check_cuda(cudaThreadExchangeStreamCaptureMode(&mode), "cudaThreadExchangeStreamCaptureMode");
    return h;
  } catch (...) {
    cudaThreadExchangeStreamCaptureMode(&mode);
    throw;
  }
}

}  // namespace

void with_cublas(cudaStream_t stream, const std::function<void(cublasHandle_t)>& fn) {
  int device = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice (cuBLAS handle)");
  if (device < 0 || device >= kMaxDevices)
    throw std::runtime_error("cublas: device ordinal " + std::to_string(device) + " beyond the handle table");
  HandleTable& t = table();
  std::lock_guard lock(t.mu);
  cublasHandle_t& h = t.handles[static_cast<size_t>(device)];
  if (!h) h = make_handle();
  check_cublas(cublasSetStream(h, stream), "cublasSetStream");
  fn(h);
}

}  // namespace music3::ops
