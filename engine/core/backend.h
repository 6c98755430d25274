// A Backend owns raw memory and copies for one device type.
// Contract: alloc() never returns null (it throws, naming the device and size);
// copy() is ordered on the given stream (nullptr = the device's default stream);
// synchronize() waits for all work queued on that stream. find_backend() returns
// nullptr when the device type has no backend in this build or no device at run time;
// backend_for() throws instead, naming the device.
// Thread-safety: backends are process-wide and thread-safe; work issued on one stream runs in issue order.
#pragma once
#include <cstddef>

#include "engine/core/device_type.h"

namespace music3 {

enum class CopyKind { HostToDevice, DeviceToHost, DeviceToDevice };

class Backend {
 public:
  virtual ~Backend() = default;
  virtual DeviceType type() const = 0;
  virtual void* alloc(size_t bytes) = 0;
  virtual void free(void* p) = 0;
  virtual void copy(void* dst, const void* src, size_t bytes, CopyKind kind, void* stream) = 0;
  virtual void synchronize(void* stream) = 0;

  // The stream a new queue on this device uses (nullptr: the device's only stream).
  virtual void* default_stream() { return nullptr; }
  // A second stream, for work that runs beside the default stream's (a queue of side_queue(), queue.h): one per
  // process, made on first use; nullptr where the device has only one stream. Where the device has stream
  // priorities the default stream's is the greater, so the side stream's work yields to it.
  virtual void* side_stream() { return nullptr; }

  // Optional graphs: record the work issued on `stream` between begin_capture and
  // end_capture once, then replay it with launch_graph. A backend without graphs
  // returns false from supports_graphs(); callers then issue the work directly.
  // The captured work must not synchronize with the host or allocate.
  virtual bool supports_graphs() const { return false; }
  virtual void begin_capture(void* stream);
  virtual void* end_capture(void* stream);  // an executable graph handle
  virtual void launch_graph(void* graph, void* stream);
  virtual void destroy_graph(void* graph);

  // Host memory the device can copy into without a host wait (CUDA: page-locked), and a device-to-host copy
  // ordered on `stream` that returns before it is done: `dst` is host memory of alloc_host(), read only after the
  // stream has passed a later mark (wait_mark) or synchronize(). The defaults, for a backend whose copies are done
  // when the call returns (the CPU), are plain heap memory and copy().
  virtual void* alloc_host(size_t bytes);
  virtual void free_host(void* p);
  virtual void copy_to_host_async(void* dst, const void* src, size_t bytes, void* stream);

  // Optional stream marks, so the host can wait for one point of a stream while later work is already queued
  // behind it: new_mark() makes one, mark() places it after the work issued on `stream` so far, wait_mark() blocks
  // until the stream has passed it (a mark never placed has been passed). A backend whose work is done when the
  // issuing call returns (the CPU) keeps these defaults, which do nothing.
  virtual void* new_mark() { return nullptr; }
  virtual void mark(void* m, void* stream);
  virtual void wait_mark(void* m);
  virtual void delete_mark(void* m);
};

// `bytes` of a backend's alloc_host() memory, released with the object.
class HostStaging {
 public:
  HostStaging(Backend& be, size_t bytes) : be_(be), data_(be.alloc_host(bytes)), bytes_(bytes) {}
  ~HostStaging() { be_.free_host(data_); }
  HostStaging(const HostStaging&) = delete;
  HostStaging& operator=(const HostStaging&) = delete;
  void* data() const { return data_; }
  size_t bytes() const { return bytes_; }

 private:
  Backend& be_;
  void* data_;
  size_t bytes_;
};

// One stream mark of a backend (Backend::new_mark), released with the object.
class StreamMark {
 public:
  explicit StreamMark(Backend& be) : be_(be), mark_(be.new_mark()) {}
  ~StreamMark() { be_.delete_mark(mark_); }
  StreamMark(const StreamMark&) = delete;
  StreamMark& operator=(const StreamMark&) = delete;
  void place(void* stream) { be_.mark(mark_, stream); }
  void wait() { be_.wait_mark(mark_); }

 private:
  Backend& be_;
  void* mark_;
};

Backend* find_backend(DeviceType t);
Backend& backend_for(DeviceType t);

// True when this build has CUDA providers and the runtime sees at least one device.
bool cuda_device_available();

}  // namespace music3
