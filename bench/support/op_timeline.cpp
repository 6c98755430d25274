#include "bench/support/op_timeline.h"

#include <chrono>
#include <stdexcept>

#ifdef MUSIC3_WITH_CUDA
#include "engine/core/cuda/cuda_backend.h"
#endif

namespace music3::bench {

OpTimeline::OpTimeline(const Queue& q, OpLabeler labeler) : q_(q), labeler_(std::move(labeler)) {}

OpTimeline::~OpTimeline() {
  if (open_) ops::set_op_observer(nullptr);
#ifdef MUSIC3_WITH_CUDA
  for (void* e : events_) cudaEventDestroy(static_cast<cudaEvent_t>(e));
#endif
}

void* OpTimeline::event(size_t i) {
#ifdef MUSIC3_WITH_CUDA
  while (events_.size() <= i) {
    cudaEvent_t e = nullptr;
    check_cuda(cudaEventCreate(&e), "cudaEventCreate (op timeline)");
    events_.push_back(e);
  }
  return events_[i];
#else
  (void)i;
  return nullptr;
#endif
}

void OpTimeline::begin_step() {
  if (open_) throw std::logic_error("op timeline: begin_step() with a step already open");
  q_.synchronize();
  calls_.clear();
  depth_ = 0;
  open_ = true;
  ops::set_op_observer(this);
}

void OpTimeline::before(ops::OpId op, const ops::Provider& p, const Queue& q, const void* args) {
  if (!mine(q) || depth_++ > 0) return;  // an op a provider issues inside another is part of the outer one
  const OpCost c = labeler_(op, args);
  size_t row = 0;
  while (row < rows_.size() && rows_[row].label != c.label) ++row;
  if (row == rows_.size()) rows_.push_back({c.label, p.name});
  if (rows_[row].provider != p.name && rows_[row].provider.back() != '+') rows_[row].provider += "+";
  rows_[row].calls += 1;
  rows_[row].flops += c.flops;
  rows_[row].bytes += c.bytes;
  calls_.push_back({row, {}, {}});
#ifdef MUSIC3_WITH_CUDA
  if (q_.device == DeviceType::CUDA) {
    check_cuda(cudaEventRecord(static_cast<cudaEvent_t>(event(2 * (calls_.size() - 1))),
                               static_cast<cudaStream_t>(q_.stream)),
               "cudaEventRecord (op start)");
    return;
  }
#endif
  calls_.back().host_start = std::chrono::steady_clock::now();
}

void OpTimeline::after(ops::OpId, const ops::Provider&, const Queue& q, const void*) {
  if (!mine(q) || --depth_ > 0) return;
#ifdef MUSIC3_WITH_CUDA
  if (q_.device == DeviceType::CUDA) {
    check_cuda(cudaEventRecord(static_cast<cudaEvent_t>(event(2 * calls_.size() - 1)),
                               static_cast<cudaStream_t>(q_.stream)),
               "cudaEventRecord (op stop)");
    return;
  }
#endif
  q_.synchronize();
  calls_.back().host_stop = std::chrono::steady_clock::now();
}

double OpTimeline::elapsed(size_t from, size_t to) const {
#ifdef MUSIC3_WITH_CUDA
  if (q_.device == DeviceType::CUDA) {
    float ms = 0;
    check_cuda(cudaEventElapsedTime(&ms, static_cast<cudaEvent_t>(events_[from]), static_cast<cudaEvent_t>(events_[to])),
               "cudaEventElapsedTime (op timeline)");
    return ms / 1e3;
  }
#endif
  const Call& a = calls_[from / 2];
  const Call& b = calls_[to / 2];
  return std::chrono::duration<double>((to % 2 ? b.host_stop : b.host_start) - (from % 2 ? a.host_stop : a.host_start))
      .count();
}

void OpTimeline::end_step() {
  if (!open_) throw std::logic_error("op timeline: end_step() with no step open");
  ops::set_op_observer(nullptr);
  open_ = false;
#ifdef MUSIC3_WITH_CUDA
  if (q_.device == DeviceType::CUDA) check_cuda(cudaGetLastError(), "a kernel launched in the observed step");
#endif
  q_.synchronize();
  if (calls_.empty()) return;
  for (size_t i = 0; i < calls_.size(); ++i) rows_[calls_[i].row].seconds += elapsed(2 * i, 2 * i + 1);
  span_ += elapsed(0, 2 * calls_.size() - 1);
  ++steps_;
}

}  // namespace music3::bench
