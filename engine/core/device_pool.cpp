#include "engine/core/device_pool.h"

#include <string>
#include <utility>

namespace music3 {

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& o) noexcept {
  if (this != &o) {
    reset();
    pool_ = std::exchange(o.pool_, nullptr);
    data_ = std::exchange(o.data_, nullptr);
    bytes_ = std::exchange(o.bytes_, 0);
  }
  return *this;
}

void DeviceBuffer::reset() {
  if (pool_ && data_) pool_->release(data_, bytes_);
  pool_ = nullptr;
  data_ = nullptr;
  bytes_ = 0;
}

// 256-byte granules: coalescing-friendly alignment, and equal requests share a class.
size_t DevicePool::size_class(size_t bytes) { return (bytes + 255) / 256 * 256; }

DeviceBuffer DevicePool::acquire(size_t bytes) {
  size_t cls = size_class(bytes ? bytes : 1);
  std::lock_guard lock(mu_);
  if (budget_ && stats_.bytes_live + cls > budget_)
    throw DeviceBudgetExceeded("device pool on '" + device_type_name(backend_.type()) + "': " + std::to_string(cls) +
                               " more bytes would take the bytes in use to " + std::to_string(stats_.bytes_live + cls) +
                               ", past the budget of " + std::to_string(budget_));
  ++stats_.acquires;
  void* p = nullptr;
  auto it = free_.find(cls);
  if (it != free_.end() && !it->second.empty()) {
    p = it->second.back();
    it->second.pop_back();
    stats_.bytes_cached -= cls;
  } else {
    p = backend_.alloc(cls);
    ++stats_.backend_allocs;
  }
  stats_.bytes_live += cls;
  return DeviceBuffer(this, p, cls);
}

void DevicePool::release(void* p, size_t bytes) {
  std::lock_guard lock(mu_);
  free_[bytes].push_back(p);
  stats_.bytes_live -= bytes;
  stats_.bytes_cached += bytes;
}

DevicePool::Stats DevicePool::stats() const {
  std::lock_guard lock(mu_);
  return stats_;
}

DevicePool::~DevicePool() {
  for (auto& [cls, blocks] : free_)
    for (void* p : blocks) backend_.free(p);
}

}  // namespace music3
