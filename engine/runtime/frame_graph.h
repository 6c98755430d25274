// Capture once per mode, replay after: a frame body that reads only buffers filled
// before it runs is recorded the first time each mode runs and replayed from then
// on, where the queue's backend has graphs (CUDA); elsewhere the body is issued
// directly every time. A body that throws during capture ends the capture and
// rethrows, leaving that mode uncaptured.
// Contract: the body must not synchronize with the host or allocate (backend.h).
// Thread-safety: one owner, not thread-safe.
#pragma once
#include <functional>
#include <vector>

#include "engine/core/queue.h"

namespace music3::runtime {

class FrameGraph {
 public:
  FrameGraph(const Queue& q, int modes);
  ~FrameGraph();
  FrameGraph(const FrameGraph&) = delete;
  FrameGraph& operator=(const FrameGraph&) = delete;

  void run(int mode, const std::function<void()>& body);

 private:
  Queue q_;
  std::vector<void*> graphs_;
};

}  // namespace music3::runtime
