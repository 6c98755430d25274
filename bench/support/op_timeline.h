// Per-op device time of the work one thread issues on one queue, through the op dispatch observer
// (engine/ops/op_observer.h): while a step is open, every op dispatched on the queue's stream is bracketed by two
// CUDA events on that stream (CPU queues: the host clock, the CPU providers run in the call), and end_step() waits
// for the queue and adds each op's time to its row. Rows are keyed by the label a labeler gives each call (with the
// call's FLOPs and bytes moved), in first-seen order, with the provider that ran them, so a tool can sum a model's ops by kind.
// The events sit between ops, not inside a graph: time the body eagerly (a backend without graphs,
// observed_backend.h); each op's time is its kernels' span, the gaps between ops land in span_seconds() only.
// Contract: begin_step() installs this timeline as the process's op observer (throws if a step is already open),
// end_step() removes it; ops on other streams are not counted, nor ops a provider dispatches inside its own call
// (their time is the outer op's). CUDA statuses are checked (the call named).
// Thread-safety: one owner; the observed ops must come from one thread.
#pragma once
#include <chrono>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <string>
#include <vector>

#include "engine/core/queue.h"
#include "engine/core/tensor.h"
#include "engine/ops/op_observer.h"

namespace music3::bench {

struct OpCost {
  std::string label;
  double flops = 0, bytes = 0;  // per call; bytes: read plus written, each tensor once
};
using OpLabeler = std::function<OpCost(ops::OpId, const void* args)>;

struct OpRow {
  std::string label;
  std::string provider;  // the provider of its calls ("<first>+" when they differed)
  int64_t calls = 0;
  double seconds = 0, flops = 0, bytes = 0;  // sums over every call of every step
};

// The bytes an op call moves, for a labeler: the sum of the given tensors' sizes, each counted once; tensors
// without data (optional arguments left out) count 0.
inline double tensor_bytes(std::initializer_list<const Tensor*> ts) {
  double b = 0;
  for (const Tensor* t : ts)
    if (t->data) b += double(t->bytes());
  return b;
}

// How a row is judged: GEMM-like when its label gave FLOPs (TFLOP/s), else bandwidth-bound (bytes, TB/s).
inline bool op_is_compute(const OpRow& row) { return row.flops > 0; }

class OpTimeline final : public ops::OpObserver {
 public:
  OpTimeline(const Queue& q, OpLabeler labeler);
  ~OpTimeline() override;
  OpTimeline(const OpTimeline&) = delete;
  OpTimeline& operator=(const OpTimeline&) = delete;

  void begin_step();
  void end_step();
  const std::vector<OpRow>& rows() const { return rows_; }
  int steps() const { return steps_; }
  double span_seconds() const { return span_; }  // sum over steps: the first op's start to the last op's end

  void before(ops::OpId op, const ops::Provider& p, const Queue& q, const void* args) override;
  void after(ops::OpId op, const ops::Provider& p, const Queue& q, const void* args) override;

 private:
  struct Call {
    size_t row;
    std::chrono::steady_clock::time_point host_start, host_stop;  // CPU queues
  };
  void* event(size_t i);  // the i-th event of the pool, made on first use
  double elapsed(size_t from, size_t to) const;
  bool mine(const Queue& q) const { return q.device == q_.device && q.stream == q_.stream; }

  Queue q_;
  OpLabeler labeler_;
  bool open_ = false;
  int depth_ = 0;  // ops dispatched inside a provider's call count as part of it
  std::vector<void*> events_;
  std::vector<Call> calls_;  // of the open step; call i uses events 2i and 2i + 1
  std::vector<OpRow> rows_;
  int steps_ = 0;
  double span_ = 0;
};

}  // namespace music3::bench
