// Memory for op tests on any device with a backend, seen as a Tensor.
// Contract: a TestBuffer owns bytes on `device` (freed on destruction); upload()
// copies a host vector in (sizes must match, or it throws); download() copies the
// whole buffer out; poison() fills every byte with 0xFF (a bf16 / f32 NaN pattern,
// i32 -1), so an element a provider failed to write never looks like a result.
#pragma once
#include <cstdint>
#include <cstring>
#include <stdexcept>
#include <vector>

#include "engine/core/backend.h"
#include "engine/core/tensor.h"

namespace music3::optest {

class TestBuffer {
 public:
  TestBuffer(DeviceType device, DType dtype, Shape shape);
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
  Tensor view_;
};

}  // namespace music3::optest
