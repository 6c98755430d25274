#include "bench/support/queue_timer.h"

#include <chrono>
#include <stdexcept>
#include <string>

#ifdef MUSIC3_WITH_CUDA
#include "engine/core/cuda/cuda_backend.h"
#endif

namespace music3::bench {
namespace {
double host_seconds() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
}  // namespace

QueueTimer::QueueTimer(const Queue& q) : q_(q) {
#ifdef MUSIC3_WITH_CUDA
  if (q_.device == DeviceType::CUDA)
    for (auto& e : events_) {
      cudaEvent_t ev = nullptr;
      check_cuda(cudaEventCreate(&ev), "cudaEventCreate");
      e = ev;
    }
#endif
}

QueueTimer::~QueueTimer() {
#ifdef MUSIC3_WITH_CUDA
  for (auto e : events_)
    if (e) cudaEventDestroy(static_cast<cudaEvent_t>(e));
#endif
}

void QueueTimer::start() {
#ifdef MUSIC3_WITH_CUDA
  if (events_[0]) {
    check_cuda(cudaEventRecord(static_cast<cudaEvent_t>(events_[0]), static_cast<cudaStream_t>(q_.stream)),
               "cudaEventRecord (start)");
    return;
  }
#endif
  q_.synchronize();
  host_start_ = host_seconds();
}

double QueueTimer::stop_seconds() {
#ifdef MUSIC3_WITH_CUDA
  if (events_[0]) {
    auto start = static_cast<cudaEvent_t>(events_[0]), stop = static_cast<cudaEvent_t>(events_[1]);
    check_cuda(cudaGetLastError(), "a kernel launched in the timed region");
    check_cuda(cudaEventRecord(stop, static_cast<cudaStream_t>(q_.stream)), "cudaEventRecord (stop)");
    check_cuda(cudaEventSynchronize(stop), "cudaEventSynchronize");
    float ms = 0;
    check_cuda(cudaEventElapsedTime(&ms, start, stop), "cudaEventElapsedTime");
    return ms / 1e3;
  }
#endif
  q_.synchronize();
  return host_seconds() - host_start_;
}

}  // namespace music3::bench
