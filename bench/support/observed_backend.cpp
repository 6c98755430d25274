#include "bench/support/observed_backend.h"

#include <stdexcept>

namespace music3::bench {

ObservedBackend::ObservedBackend(Backend& inner, bool graphs)
    : inner_(inner), graphs_(graphs), events_(inner.type() == DeviceType::CUDA) {}

void ObservedBackend::launch_graph(void* graph, void* stream) {
  if (!events_.active() || !observing_) {
    inner_.launch_graph(graph, stream);
    return;
  }
  if (pending_) seconds_ += events_.seconds("graph replay");
  events_.record_start(stream, "graph start");
  inner_.launch_graph(graph, stream);
  events_.record_stop(stream, "graph stop");
  pending_ = true;
  ++replays_;
}

double ObservedBackend::take_graph_seconds() {
  if (replays_ == 0) throw std::logic_error("observed backend: no timed graph replay since the last take");
  if (pending_) seconds_ += events_.seconds("graph replay");
  const double s = seconds_;
  pending_ = false;
  replays_ = 0;
  seconds_ = 0;
  return s;
}

void ObservedBackend::discard_graph_seconds() {
  if (replays_ > 0) take_graph_seconds();
}

}  // namespace music3::bench
