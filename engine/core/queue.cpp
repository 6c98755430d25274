#include "engine/core/queue.h"

#include <stdexcept>

#include "engine/core/cpu_backend.h"

namespace music3 {

Queue cpu_queue(int threads) {
  Queue q;
  q.device = DeviceType::CPU;
  q.backend = &cpu_backend();
  q.threads = threads;
  return q;
}

Queue cuda_queue(int ordinal) {
  if (!cuda_device_available())
    throw std::runtime_error("device 'cuda': no CUDA device is available (build without CUDA, or no GPU)");
  Queue q;
  q.device = DeviceType::CUDA;
  q.ordinal = ordinal;
  q.backend = &backend_for(DeviceType::CUDA);
  q.stream = q.backend->default_stream();
  return q;
}

Queue fabricated_queue(DeviceType t) {
  Queue q;
  q.device = t;
  return q;
}

}  // namespace music3
