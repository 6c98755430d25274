// Memory on a queue's device for the benches, and a timer for work issued on a queue.
// Contract: QueueBuffer allocates through the queue's backend (never managed memory)
// and frees on destruction; upload() copies host bytes in, ordered on the queue's
// stream; view() types a byte range as a Tensor on the queue's device. QueueTimer
// measures device time with CUDA events on the queue's stream for CUDA queues, and
// steady_clock around synchronize() elsewhere; every CUDA status is checked.
#pragma once
#include <cstddef>

#include "engine/core/queue.h"
#include "engine/core/tensor.h"

namespace music3::bench {

class QueueBuffer {
 public:
  QueueBuffer(const Queue& q, size_t bytes);
  ~QueueBuffer();
  QueueBuffer(QueueBuffer&& o) noexcept;
  QueueBuffer(const QueueBuffer&) = delete;
  QueueBuffer& operator=(const QueueBuffer&) = delete;
  QueueBuffer& operator=(QueueBuffer&&) = delete;

  void upload(const void* host, size_t bytes, size_t offset = 0);
  void* data() const { return data_; }
  size_t bytes() const { return bytes_; }
  Tensor view(DType dt, Shape shape, size_t offset_bytes = 0) const;

 private:
  Queue q_;
  void* data_ = nullptr;
  size_t bytes_ = 0;
};

class QueueTimer {
 public:
  explicit QueueTimer(const Queue& q);
  ~QueueTimer();
  QueueTimer(const QueueTimer&) = delete;
  QueueTimer& operator=(const QueueTimer&) = delete;
  void start();
  double stop_seconds();  // waits for the work issued since start()

 private:
  Queue q_;
  void* events_[2] = {nullptr, nullptr};
  double host_start_ = 0;
};

}  // namespace music3::bench
