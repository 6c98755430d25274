// A timer for work issued on a queue (the benches' device memory is
// engine/core/device_array.h). Contract: QueueTimer measures device time with CUDA events on the queue's stream for CUDA queues, and
// steady_clock around synchronize() elsewhere; every CUDA status is checked.
// Thread-safety: one owner, not thread-safe.
#pragma once
#include <cstddef>

#include "bench/support/cuda_event_pair.h"
#include "engine/core/queue.h"

namespace music3::bench {

class QueueTimer {
 public:
  explicit QueueTimer(const Queue& q);
  QueueTimer(const QueueTimer&) = delete;
  QueueTimer& operator=(const QueueTimer&) = delete;
  void start();
  double stop_seconds();  // waits for the work issued since start()

 private:
  Queue q_;
  CudaEventPair events_;
  double host_start_ = 0;
};

}  // namespace music3::bench
