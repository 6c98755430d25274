// Bytes owned on a queue's device, seen as a Tensor: the one device buffer of the
// tests and benches (the engine's arms draw theirs from a DevicePool instead).
// Contract: allocates through the queue's backend (never managed memory; a queue
// with no backend throws naming the device) and frees on destruction; movable.
// upload(host, bytes, offset) copies in, ordered on the queue's stream (the host
// bytes must live until the stream reaches it); upload(vector) checks the size
// against the whole buffer and waits; download<T>() waits for the stream, then copies
// the whole buffer out; poison() fills every byte with 0xFF (a bf16 / f32 NaN, i32 -1)
// and waits, so an element nobody wrote never looks like a result. view() types a
// byte range as a Tensor and throws std::out_of_range when it overruns.
// Thread-safety: one owner, not thread-safe.
#pragma once
#include <cstddef>
#include <stdexcept>
#include <vector>

#include "engine/core/queue.h"
#include "engine/core/tensor.h"

namespace music3 {

class DeviceArray {
 public:
  DeviceArray(const Queue& q, size_t bytes);
  DeviceArray(const Queue& q, DType dtype, Shape shape);  // tensor() is the whole buffer
  ~DeviceArray();
  DeviceArray(DeviceArray&& o) noexcept;
  DeviceArray(const DeviceArray&) = delete;
  DeviceArray& operator=(const DeviceArray&) = delete;
  DeviceArray& operator=(DeviceArray&&) = delete;

  void* data() const { return whole_.data; }
  size_t bytes() const { return bytes_; }
  const Tensor& tensor() const { return whole_; }
  operator const Tensor&() const { return whole_; }
  Tensor view(DType dt, Shape shape, size_t offset_bytes = 0) const;

  void upload(const void* host, size_t bytes, size_t offset = 0);
  template <class T>
  void upload(const std::vector<T>& host) {
    if (host.size() * sizeof(T) != bytes_) throw std::invalid_argument("DeviceArray::upload: size mismatch");
    upload(host.data(), bytes_);
    q_.synchronize();
  }
  template <class T>
  std::vector<T> download() const {
    std::vector<T> host(bytes_ / sizeof(T));
    copy_out(host.data());
    return host;
  }
  void poison();

 private:
  void copy_out(void* dst) const;

  Queue q_;
  size_t bytes_ = 0;
  Tensor whole_;  // the whole buffer, as bytes (U8) or as the dtype and shape given
};

}  // namespace music3
