#include "engine/ops/cuda/cublas_handle.h"

#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>

#include "engine/core/cuda/cuda_backend.h"
#include "engine/ops/cuda/capture_mode.h"

namespace music3::ops {

void check_cublas(cublasStatus_t status, const char* what) {
  if (status != CUBLAS_STATUS_SUCCESS)
    throw std::runtime_error(std::string("cublas: ") + what + ": " + cublasGetStatusString(status));
}

namespace {

constexpr int kMaxDevices = 64;
constexpr size_t kWorkspaceBytes = size_t{32} << 20;  // cuBLAS's advice for Hopper

struct LtHandle {
  cublasLtHandle_t handle = nullptr;
  void* workspace = nullptr;
};

using HandleKey = std::pair<int, cudaStream_t>;  // (device, stream)

struct HandleTable {
  std::mutex mu;
  std::map<HandleKey, cublasHandle_t> handles;
  std::map<HandleKey, LtHandle> lt;
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

LtHandle configure_lt() {
  LtHandle lt;
  check_cublas(cublasLtCreate(&lt.handle), "cublasLtCreate");
  check_cuda(cudaMalloc(&lt.workspace, kWorkspaceBytes), "cudaMalloc (cuBLASLt workspace)");
  return lt;
}

// The first cuBLAS call on a device may come while this thread captures a graph (a provider that
// never ran before the capture, e.g. with the GEMV provider disabled): the handle's set-up calls (cudaMalloc) run
// in relaxed capture mode (capture_mode.h), outside the graph.
int current_device() {
  int device = 0;
  check_cuda(cudaGetDevice(&device), "cudaGetDevice (cuBLAS handle)");
  if (device < 0 || device >= kMaxDevices)
    throw std::runtime_error("cublas: device ordinal " + std::to_string(device) + " beyond the handle table");
  return device;
}

}  // namespace

void with_cublas(cudaStream_t stream, const std::function<void(cublasHandle_t)>& fn) {
  const int device = current_device();
  HandleTable& t = table();
  std::lock_guard lock(t.mu);
  cublasHandle_t& h = t.handles[{device, stream}];
  if (!h) h = relaxed_capture(configure_handle);
  check_cublas(cublasSetStream(h, stream), "cublasSetStream");
  fn(h);
}

void with_cublaslt(cudaStream_t stream, const std::function<void(cublasLtHandle_t, void*, size_t)>& fn) {
  const int device = current_device();
  HandleTable& t = table();
  std::lock_guard lock(t.mu);
  LtHandle& lt = t.lt[{device, stream}];
  if (!lt.handle) lt = relaxed_capture(configure_lt);
  fn(lt.handle, lt.workspace, kWorkspaceBytes);
}

}  // namespace music3::ops
