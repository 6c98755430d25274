// A Queue is where work runs: a device type, an ordinal, a stream and the backend.
// Contract: cpu_queue() always works; cuda_queue() throws naming the device when
// there is no CUDA device; fabricated_queue() makes a queue of any type with no
// backend and no stream, used by the selection gates to drive arm selection for
// device types this machine does not have. `threads` bounds the CPU providers'
// parallelism (0 = all cores); results never depend on it. queue_for() is the one
// device-type -> queue mapping (CPU and CUDA queues; any other type a fabricated queue,
// which arm selection refuses by name); queue_by_name() adds the name lookup and throws
// std::invalid_argument naming an unknown device. side_queue(q) is q's device on its backend's second stream
// (Backend::side_stream), for work that runs beside q's (the same queue where the backend has one stream: CPU).
// Thread-safety: thread-safe.
#pragma once
#include "engine/core/backend.h"
#include <string>

#include "engine/core/device_type.h"

namespace music3 {

struct Queue {
  DeviceType device = DeviceType::CPU;
  int ordinal = 0;
  void* stream = nullptr;
  Backend* backend = nullptr;
  int threads = 0;

  bool is_cpu() const { return device == DeviceType::CPU; }
  void synchronize() const {
    if (backend) backend->synchronize(stream);
  }
};

Queue cpu_queue(int threads = 0);
Queue cuda_queue(int ordinal = 0);
Queue fabricated_queue(DeviceType t);
Queue queue_for(DeviceType t, int threads = 0);
Queue queue_by_name(const std::string& device, int threads = 0);
Queue side_queue(const Queue& q);

}  // namespace music3
