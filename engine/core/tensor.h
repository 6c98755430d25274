// A non-owning view of a contiguous row-major tensor on some device.
// Contract: a view never owns memory; shape has rank 0..4; numel() and bytes()
// follow from shape and dtype. describe() renders "BF16[2,4096]@cuda" for errors.
// Thread-safety: a Tensor is a plain view; ordering writes through views of the same bytes is the caller's job.
#pragma once
#include <array>
#include <cstdint>
#include <initializer_list>
#include <string>

#include "engine/core/device_type.h"
#include "engine/core/dtype.h"

namespace music3 {

struct Shape {
  std::array<int64_t, 4> dim{};
  int rank = 0;

  Shape() = default;
  Shape(std::initializer_list<int64_t> d);
  int64_t operator[](int i) const { return dim[static_cast<size_t>(i)]; }
  int64_t numel() const;
  bool operator==(const Shape& o) const;
  std::string str() const;  // "[2,4096]"
};

struct Tensor {
  void* data = nullptr;
  DType dtype = DType::BF16;
  Shape shape;
  DeviceType device = DeviceType::CPU;

  int64_t numel() const { return shape.numel(); }
  size_t bytes() const { return static_cast<size_t>(numel()) * dtype_size(dtype); }
  template <class T>
  T* as() const {
    return static_cast<T*>(data);
  }
  std::string describe() const;
};

}  // namespace music3
