#include "engine/runtime/host_tensor.h"

#include <utility>

namespace music3::runtime {

HostTensor HostTensor::mapped(Shape s, const bf16* data, std::shared_ptr<const void> keeper) {
  HostTensor t;
  t.shape = s;
  t.mapped_ = data;
  t.keeper_ = std::move(keeper);
  return t;
}

bf16* HostTensor::mutable_ptr() {
  if (mapped_) {
    owned_.assign(mapped_, mapped_ + numel());
    mapped_ = nullptr;
    keeper_.reset();
  }
  return owned_.data();
}

}  // namespace music3::runtime
