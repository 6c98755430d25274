#include "bench/support/observed_backend.h"

#include <stdexcept>

namespace music3::bench {

ObservedBackend::ObservedBackend(Backend& inner, bool graphs)
    : inner_(inner), graphs_(graphs), events_(inner.type() == DeviceType::CUDA) {}

void ObservedBackend::launch_graph(void* graph, void* stream) {
  if (!events_.active()) {
    inner_.launch_graph(graph, stream);
    return;
  }
  events_.record_start(stream, "graph start");
  inner_.launch_graph(graph, stream);
  events_.record_stop(stream, "graph stop");
  launched_ = true;
}

double ObservedBackend::last_graph_seconds() const {
  if (!launched_) throw std::logic_error("observed backend: no timed graph replay yet");
  return events_.seconds("graph replay");
}

}  // namespace music3::bench
