#include "bench/support/observed_backend.h"

#include <stdexcept>

#ifdef MUSIC3_WITH_CUDA
#include "engine/core/cuda/cuda_backend.h"
#endif

namespace music3::bench {

ObservedBackend::ObservedBackend(Backend& inner, bool graphs) : inner_(inner), graphs_(graphs) {
#ifdef MUSIC3_WITH_CUDA
  if (inner_.type() == DeviceType::CUDA)
    for (auto& e : events_) {
      cudaEvent_t ev = nullptr;
      check_cuda(cudaEventCreate(&ev), "cudaEventCreate (observed backend)");
      e = ev;
    }
#endif
}

ObservedBackend::~ObservedBackend() {
#ifdef MUSIC3_WITH_CUDA
  for (void* e : events_)
    if (e) cudaEventDestroy(static_cast<cudaEvent_t>(e));
#endif
}

void ObservedBackend::launch_graph(void* graph, void* stream) {
#ifdef MUSIC3_WITH_CUDA
  if (events_[0]) {
    check_cuda(cudaEventRecord(static_cast<cudaEvent_t>(events_[0]), static_cast<cudaStream_t>(stream)),
               "cudaEventRecord (graph start)");
    inner_.launch_graph(graph, stream);
    check_cuda(cudaEventRecord(static_cast<cudaEvent_t>(events_[1]), static_cast<cudaStream_t>(stream)),
               "cudaEventRecord (graph stop)");
    launched_ = true;
    return;
  }
#endif
  inner_.launch_graph(graph, stream);
}

double ObservedBackend::last_graph_seconds() const {
  if (!launched_) throw std::logic_error("observed backend: no timed graph replay yet");
#ifdef MUSIC3_WITH_CUDA
  check_cuda(cudaEventSynchronize(static_cast<cudaEvent_t>(events_[1])), "cudaEventSynchronize (graph stop)");
  float ms = 0;
  check_cuda(cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(events_[0]), static_cast<cudaEvent_t>(events_[1])),
             "cudaEventElapsedTime (graph replay)");
  return ms / 1e3;
#else
  return 0;
#endif
}

}  // namespace music3::bench
