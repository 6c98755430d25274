// The device buffers one arm holds for its life: weights staged from host memory
// (a mapped checkpoint or owned storage) and working buffers, all drawn from the
// queue's device pool, with the residency instruments kept as they are made.
// Contract: resident() adds dtype_bit(dt) to instruments.resident_dtypes for a
// forward buffer and to aux_dtypes otherwise; stage()/stage_rows() copy host bf16
// data (row blocks in the order given) into a new forward buffer and add its bytes
// to staged_bytes; the copies are ordered on the queue's stream (call
// Queue::synchronize() before the host data may go); every buffer returns to the
// pool when the set is destroyed. Thread-safety: one owner, not thread-safe.
#pragma once
#include <initializer_list>
#include <vector>

#include "engine/core/device_pool.h"
#include "engine/core/queue.h"
#include "engine/core/tensor.h"
#include "engine/runtime/arm.h"
#include "engine/runtime/host_tensor.h"

namespace music3::runtime {

class ResidentSet {
 public:
  ResidentSet(const Queue& q, DevicePool& pool, ArmInstruments& instruments);

  Tensor resident(DType dt, Shape shape, bool forward_buffer);
  Tensor stage(const HostTensor& host);
  // One [sum of rows, width] buffer holding the parts' rows one block after another.
  Tensor stage_rows(std::initializer_list<const HostTensor*> parts);
  // Records the pool's backend allocations so far in the instruments.
  void note_pool_stats();

 private:
  Queue q_;
  DevicePool& pool_;
  ArmInstruments& ins_;
  std::vector<DeviceBuffer> held_;
};

// A row range [first, first + count) of a 2-D view.
Tensor row_range(const Tensor& t, int64_t first, int64_t count);

}  // namespace music3::runtime
