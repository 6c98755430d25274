// A Backend that forwards to another (the device's own) with two changes for timing tools: graphs can be turned
// off (supports_graphs() false, so a FrameGraph body runs eagerly, op by op, where an op timeline can bracket each
// op), and every launch_graph is bracketed by two CUDA events on its stream (CUDA backends), so the replay's
// device time is known apart from the host work around it (set_observing(false) pauses that). Memory, copies,
// streams, marks and synchronize are the inner backend's, so buffers of either are interchangeable.
// Contract: take_graph_seconds() waits for the last replay and returns the summed device time of every replay since
// the previous take (a step may launch several graphs: the LM's decode and head); it throws when there was none.
// A launch first waits for the previous replay's stop event (its time is read before the pair is reused), so
// consecutive launches with no host sync between them are serialised with the host. The inner backend must outlive this one. CUDA statuses are checked (the call named).
// Thread-safety: as the inner backend's, except launch_graph/take_graph_seconds: one thread.
#pragma once
#include "bench/support/cuda_event_pair.h"
#include "engine/core/backend.h"

namespace music3::bench {

class ObservedBackend final : public Backend {
 public:
  ObservedBackend(Backend& inner, bool graphs);
  ObservedBackend(const ObservedBackend&) = delete;
  ObservedBackend& operator=(const ObservedBackend&) = delete;

  DeviceType type() const override { return inner_.type(); }
  void* alloc(size_t bytes) override { return inner_.alloc(bytes); }
  void free(void* p) override { inner_.free(p); }
  void copy(void* dst, const void* src, size_t bytes, CopyKind kind, void* stream) override {
    inner_.copy(dst, src, bytes, kind, stream);
  }
  void synchronize(void* stream) override { inner_.synchronize(stream); }
  void* default_stream() override { return inner_.default_stream(); }
  void* side_stream() override { return inner_.side_stream(); }
  bool supports_graphs() const override { return graphs_ && inner_.supports_graphs(); }
  void begin_capture(void* stream) override { inner_.begin_capture(stream); }
  void* end_capture(void* stream) override { return inner_.end_capture(stream); }
  void launch_graph(void* graph, void* stream) override;
  void destroy_graph(void* graph) override { inner_.destroy_graph(graph); }
  void* new_mark() override { return inner_.new_mark(); }
  void mark(void* m, void* stream) override { inner_.mark(m, stream); }
  void wait_mark(void* m) override { inner_.wait_mark(m); }
  void delete_mark(void* m) override { inner_.delete_mark(m); }

  double take_graph_seconds();
  void discard_graph_seconds();  // forgets the replays since the last take (none is fine)
  // Off: launch_graph forwards unbracketed, so the same arm runs as production does (no wait between replays).
  void set_observing(bool on) { observing_ = on; }

 private:
  Backend& inner_;
  bool graphs_;
  bool observing_ = true;
  bool pending_ = false;  // a replay whose time is not yet read
  int replays_ = 0;       // since the last take
  double seconds_ = 0;    // read so far since the last take
  CudaEventPair events_;
};

}  // namespace music3::bench
