#include "engine/core/cuda/cuda_backend.h"

#include <stdexcept>
#include <string>

namespace music3 {

void check_cuda(cudaError_t status, const char* what) {
  if (status != cudaSuccess)
    throw std::runtime_error(std::string("cuda: ") + what + ": " + cudaGetErrorString(status));
}

int cuda_runtime_device_count() {
  static const int count = [] {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
      (void)cudaGetLastError();  // clear: "no device" must not poison later calls
      return 0;
    }
    return n;
  }();
  return count;
}

namespace {
cudaMemcpyKind to_cuda(CopyKind k) {
  switch (k) {
    case CopyKind::HostToDevice: return cudaMemcpyHostToDevice;
    case CopyKind::DeviceToHost: return cudaMemcpyDeviceToHost;
    case CopyKind::DeviceToDevice: return cudaMemcpyDeviceToDevice;
  }
  return cudaMemcpyDefault;
}

// A non-blocking stream at the device's greatest priority (`urgent`) or its least. The default stream (the queues
// of cuda_queue(): the AR loop) is urgent and the side stream (side_queue(): a finished window's acoustic stage and
// vocoder, run beside the AR loop) is not, so when both have work the block scheduler hands a freed multiprocessor
// to the AR loop's next kernel first: the overlap delays the AR loop, the critical path, less. Priorities change
// only the order blocks start in, never what a kernel computes.
cudaStream_t make_stream(bool urgent) {
  int least = 0, greatest = 0;
  check_cuda(cudaDeviceGetStreamPriorityRange(&least, &greatest), "cudaDeviceGetStreamPriorityRange");
  cudaStream_t st = nullptr;
  check_cuda(cudaStreamCreateWithPriority(&st, cudaStreamNonBlocking, urgent ? greatest : least),
             "cudaStreamCreateWithPriority");
  return st;
}

class CudaBackend final : public Backend {
 public:
  DeviceType type() const override { return DeviceType::CUDA; }
  void* alloc(size_t bytes) override {
    void* p = nullptr;
    check_cuda(cudaMalloc(&p, bytes ? bytes : 1), ("cudaMalloc " + std::to_string(bytes) + " bytes").c_str());
    return p;
  }
  void free(void* p) override {
    const cudaError_t st = cudaFree(p);
    // A pool destroyed during static destruction may outlive the runtime, which then
    // frees everything itself: not an error worth a crash at exit.
    if (st == cudaErrorCudartUnloading) return;
    check_cuda(st, "cudaFree");
  }
  void copy(void* dst, const void* src, size_t bytes, CopyKind kind, void* stream) override {
    if (!bytes) return;
    check_cuda(cudaMemcpyAsync(dst, src, bytes, to_cuda(kind), static_cast<cudaStream_t>(stream)),
               "cudaMemcpyAsync");
    if (kind == CopyKind::DeviceToHost) synchronize(stream);  // the caller reads the host copy next
  }
  void* alloc_host(size_t bytes) override {
    void* p = nullptr;
    check_cuda(cudaMallocHost(&p, bytes ? bytes : 1), ("cudaMallocHost " + std::to_string(bytes) + " bytes").c_str());
    return p;
  }
  // Called from HostStaging's destructor, also while an earlier CUDA error unwinds the stack (the context then
  // answers every call with that error): a throw here would end the process instead of reporting the first error.
  void free_host(void* p) override { static_cast<void>(cudaFreeHost(p)); }
  void copy_to_host_async(void* dst, const void* src, size_t bytes, void* stream) override {
    if (!bytes) return;
    check_cuda(cudaMemcpyAsync(dst, src, bytes, cudaMemcpyDeviceToHost, static_cast<cudaStream_t>(stream)),
               "cudaMemcpyAsync");
  }
  void synchronize(void* stream) override {
    check_cuda(cudaStreamSynchronize(static_cast<cudaStream_t>(stream)), "cudaStreamSynchronize");
  }
  // One non-blocking stream for the process's CUDA queues: graphs cannot be
  // captured on the legacy default stream.
  void* default_stream() override {
    static cudaStream_t s = make_stream(true);
    return s;
  }
  void* side_stream() override {
    static cudaStream_t s = make_stream(false);
    return s;
  }
  bool supports_graphs() const override { return true; }
  void begin_capture(void* stream) override {
    check_cuda(cudaStreamBeginCapture(static_cast<cudaStream_t>(stream), cudaStreamCaptureModeThreadLocal),
               "cudaStreamBeginCapture");
  }
  void* end_capture(void* stream) override {
    cudaGraph_t graph = nullptr;
    check_cuda(cudaStreamEndCapture(static_cast<cudaStream_t>(stream), &graph), "cudaStreamEndCapture");
    cudaGraphExec_t exec = nullptr;
    const cudaError_t st = cudaGraphInstantiate(&exec, graph, 0);
    cudaGraphDestroy(graph);
    check_cuda(st, "cudaGraphInstantiate");
    return exec;
  }
  void launch_graph(void* graph, void* stream) override {
    check_cuda(cudaGraphLaunch(static_cast<cudaGraphExec_t>(graph), static_cast<cudaStream_t>(stream)), "cudaGraphLaunch");
  }
  void destroy_graph(void* graph) override {
    if (graph) cudaGraphExecDestroy(static_cast<cudaGraphExec_t>(graph));
  }
  void* new_mark() override {
    cudaEvent_t e = nullptr;
    check_cuda(cudaEventCreateWithFlags(&e, cudaEventDisableTiming), "cudaEventCreateWithFlags");
    return e;
  }
  void mark(void* m, void* stream) override {
    check_cuda(cudaEventRecord(static_cast<cudaEvent_t>(m), static_cast<cudaStream_t>(stream)), "cudaEventRecord");
  }
  void wait_mark(void* m) override { check_cuda(cudaEventSynchronize(static_cast<cudaEvent_t>(m)), "cudaEventSynchronize"); }
  void delete_mark(void* m) override {
    if (m) cudaEventDestroy(static_cast<cudaEvent_t>(m));
  }
};
}  // namespace

Backend& cuda_backend() {
  static CudaBackend b;
  return b;
}

}  // namespace music3
