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

Queue queue_for(DeviceType t, int threads) {
  if (t == DeviceType::CPU) return cpu_queue(threads);
  if (t == DeviceType::CUDA) return cuda_queue(0);
  return fabricated_queue(t);
}

Queue side_queue(const Queue& q) {
  Queue side = q;
  if (q.backend)
    if (void* s = q.backend->side_stream()) side.stream = s;
  return side;
}

Queue queue_by_name(const std::string& device, int threads) {
  const auto t = device_type_from_name(device);
  if (!t) {
    std::string known;
    for (DeviceType k : all_device_types()) known += (known.empty() ? "" : ", ") + device_type_name(k);
    throw std::invalid_argument("unknown device '" + device + "' (known: " + known + ")");
  }
  return queue_for(*t, threads);
}

}  // namespace music3
