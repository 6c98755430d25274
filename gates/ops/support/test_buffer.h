// Memory for op tests on a queue's device, seen as a Tensor.
// Contract: a TestBuffer owns bytes on the queue's device (freed on destruction);
// upload() copies a host vector in (sizes must match, or it throws) and waits;
// download() waits for the queue's stream (the op under test ran there), then
// copies the whole buffer out; poison() fills every byte with 0xFF (a bf16 / f32
// NaN pattern, i32 -1), so an element a provider failed to write never looks
// like a result.
#pragma once
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "engine/core/backend.h"
#include "engine/core/queue.h"
#include "engine/core/tensor.h"

namespace music3::optest {

class TestBuffer {
 public:
  TestBuffer(const Queue& q, DType dtype, Shape shape);
  ~TestBuffer();
  TestBuffer(const TestBuffer&) = delete;
  TestBuffer& operator=(const TestBuffer&) = delete;

  const Tensor& tensor() const { return view_; }
  operator const Tensor&() const { return view_; }

  template <class T>
  void upload(const std::vector<T>& host) {
    if (host.size() * sizeof(T) != view_.bytes()) throw std::invalid_argument("TestBuffer::upload: size mismatch");
    copy_in(host.data());
  }
  template <class T>
  std::vector<T> download() const {
    std::vector<T> host(view_.bytes() / sizeof(T));
    copy_out(host.data());
    return host;
  }
  void poison();

 private:
  void copy_in(const void* src);
  void copy_out(void* dst) const;

  Backend& backend_;
  void* stream_;
  Tensor view_;
};

}  // namespace music3::optest
