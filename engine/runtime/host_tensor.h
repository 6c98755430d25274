// A bf16 host tensor a host arm reads in place: either a view into a mapped
// checkpoint (the mapping stays alive while any view of it does, and no copy is
// made), or owned storage (synthetic weights, tensors converted from F32).
// Contract: row-major; ptr() is valid for numel() elements for the tensor's life;
// mutable_ptr() returns owned storage, taking a private copy of a mapped tensor
// first (a checkpoint file is never written through). Copies share a mapping and
// copy owned storage. Thread-safety: const use is thread-safe; mutable_ptr() is not.
#pragma once
#include <cstddef>
#include <memory>
#include <vector>

#include "engine/core/bf16.h"
#include "engine/core/tensor.h"

namespace music3::runtime {

class HostTensor {
 public:
  HostTensor() = default;
  explicit HostTensor(Shape s) : shape(s), owned_(static_cast<size_t>(s.numel())) {}
  // A view of `data` (numel(s) elements) kept valid by `keeper`.
  static HostTensor mapped(Shape s, const bf16* data, std::shared_ptr<const void> keeper);

  const bf16* ptr() const { return mapped_ ? mapped_ : owned_.data(); }
  bf16* mutable_ptr();
  bool is_mapped() const { return mapped_ != nullptr; }
  int64_t numel() const { return shape.numel(); }
  size_t bytes() const { return static_cast<size_t>(numel()) * sizeof(bf16); }
  Tensor view() const { return Tensor{const_cast<bf16*>(ptr()), DType::BF16, shape, DeviceType::CPU}; }

  Shape shape;

 private:
  std::vector<bf16> owned_;
  const bf16* mapped_ = nullptr;
  std::shared_ptr<const void> keeper_;
};

}  // namespace music3::runtime
