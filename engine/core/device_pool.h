// A pooled allocator over one Backend: freed blocks are cached by size and handed
// out again, so a per-frame working set (K/V cache, activations) costs no backend
// alloc/free after the first frame.
// Contract: acquire() returns a block of at least `bytes`, aligned as the backend
// aligns; the DeviceBuffer returns it to the pool on destruction; the pool frees
// every cached block to the backend when it is destroyed (all buffers must be
// returned first). stats() counts backend calls, which the gates and benches read.
// With a budget (bytes, 0 = none), an acquire() that would take the bytes handed out
// past it throws DeviceBudgetExceeded naming the device, the request and the budget.
// Thread-safety: DevicePool is thread-safe; a DeviceBuffer has one owner.
#pragma once
#include <cstddef>
#include <map>
#include <mutex>
#include <stdexcept>
#include <vector>

#include "engine/core/backend.h"

namespace music3 {

class DevicePool;

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(DevicePool* pool, void* data, size_t bytes) : pool_(pool), data_(data), bytes_(bytes) {}
  DeviceBuffer(DeviceBuffer&& o) noexcept { *this = std::move(o); }
  DeviceBuffer& operator=(DeviceBuffer&& o) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer() { reset(); }

  void* data() const { return data_; }
  size_t bytes() const { return bytes_; }
  void reset();

 private:
  DevicePool* pool_ = nullptr;
  void* data_ = nullptr;
  size_t bytes_ = 0;
};

class DeviceBudgetExceeded : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class DevicePool {
 public:
  struct Stats {
    size_t backend_allocs = 0;  // calls that reached Backend::alloc
    size_t backend_frees = 0;   // calls that reached Backend::free
    size_t acquires = 0;        // every acquire(), cached or not
    size_t bytes_live = 0;      // handed out and not yet returned
    size_t bytes_cached = 0;    // held in free lists
  };

  explicit DevicePool(Backend& backend, size_t budget_bytes = 0) : backend_(backend), budget_(budget_bytes) {}
  ~DevicePool();
  DevicePool(const DevicePool&) = delete;
  DevicePool& operator=(const DevicePool&) = delete;

  DeviceBuffer acquire(size_t bytes);
  Backend& backend() const { return backend_; }
  Stats stats() const;

 private:
  friend class DeviceBuffer;
  void release(void* p, size_t bytes);
  static size_t size_class(size_t bytes);

  Backend& backend_;
  const size_t budget_;
  mutable std::mutex mu_;
  std::map<size_t, std::vector<void*>> free_;
  Stats stats_;
};

}  // namespace music3
