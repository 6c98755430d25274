#include "bench/support/cuda_event_pair.h"

#include <stdexcept>
#include <string>

#ifdef MUSIC3_WITH_CUDA
#include "engine/core/cuda/cuda_backend.h"
#endif

namespace music3::bench {

#ifdef MUSIC3_WITH_CUDA
namespace {
cudaEvent_t event(void* e) { return static_cast<cudaEvent_t>(e); }
std::string named(const char* call, const char* what) { return std::string(call) + " (" + what + ")"; }
}  // namespace

CudaEventPair::CudaEventPair(bool create) {
  if (!create) return;
  for (auto& e : events_) {
    cudaEvent_t ev = nullptr;
    check_cuda(cudaEventCreate(&ev), "cudaEventCreate (timing events)");
    e = ev;
  }
}

CudaEventPair::~CudaEventPair() {
  for (void* e : events_)
    if (e) cudaEventDestroy(event(e));
}

void CudaEventPair::record_start(void* stream, const char* what) {
  check_cuda(cudaEventRecord(event(events_[0]), static_cast<cudaStream_t>(stream)),
             named("cudaEventRecord", what).c_str());
}

void CudaEventPair::record_stop(void* stream, const char* what) {
  check_cuda(cudaGetLastError(), named("a kernel launched before", what).c_str());
  check_cuda(cudaEventRecord(event(events_[1]), static_cast<cudaStream_t>(stream)),
             named("cudaEventRecord", what).c_str());
}

double CudaEventPair::seconds(const char* what) const {
  check_cuda(cudaEventSynchronize(event(events_[1])), named("cudaEventSynchronize", what).c_str());
  float ms = 0;
  check_cuda(cudaEventElapsedTime(&ms, event(events_[0]), event(events_[1])),
             named("cudaEventElapsedTime", what).c_str());
  return ms / 1e3;
}
#else
CudaEventPair::CudaEventPair(bool) {}
CudaEventPair::~CudaEventPair() = default;
void CudaEventPair::record_start(void*, const char*) {}
void CudaEventPair::record_stop(void*, const char*) {}
double CudaEventPair::seconds(const char* what) const {
  throw std::logic_error(std::string("timing events (") + what + "): this build has no CUDA");
}
#endif

}  // namespace music3::bench
