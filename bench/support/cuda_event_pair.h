// Two CUDA events that bracket work on one stream, for the timing tools (QueueTimer, ObservedBackend). Contract:
// constructed with `create` false (not a CUDA queue) or in a build without CUDA, active() is false and the pair
// holds nothing; active, record_stop() first checks that no kernel launched since the last check failed, and
// seconds() waits for the stop event and returns the device time from start to stop. Every CUDA status is checked
// and named with `what`. Thread-safety: one owner, not thread-safe.
#pragma once

namespace music3::bench {

class CudaEventPair {
 public:
  explicit CudaEventPair(bool create);
  ~CudaEventPair();
  CudaEventPair(const CudaEventPair&) = delete;
  CudaEventPair& operator=(const CudaEventPair&) = delete;

  bool active() const { return events_[0] != nullptr; }
  void record_start(void* stream, const char* what);
  void record_stop(void* stream, const char* what);
  double seconds(const char* what) const;

 private:
  void* events_[2] = {nullptr, nullptr};
};

}  // namespace music3::bench
