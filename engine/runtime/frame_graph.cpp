#include "engine/runtime/frame_graph.h"

#include <stdexcept>

namespace music3::runtime {

FrameGraph::FrameGraph(const Queue& q, int modes) : q_(q), graphs_(static_cast<size_t>(modes), nullptr) {}

FrameGraph::~FrameGraph() {
  for (void* g : graphs_)
    if (g) q_.backend->destroy_graph(g);
}

void FrameGraph::run(int mode, const std::function<void()>& body) {
  Backend& be = *q_.backend;
  if (!be.supports_graphs()) {
    body();
    return;
  }
  void*& graph = graphs_.at(static_cast<size_t>(mode));
  if (!graph) {
    be.begin_capture(q_.stream);
    try {
      body();
    } catch (...) {
      try {
        be.end_capture(q_.stream);
      } catch (...) {
      }
      throw;
    }
    graph = be.end_capture(q_.stream);
  }
  be.launch_graph(graph, q_.stream);
}

}  // namespace music3::runtime
