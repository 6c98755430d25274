// A Backend owns raw memory and copies for one device type.
// Contract: alloc() never returns null (it throws, naming the device and size);
// copy() is ordered on the given stream (nullptr = the device's default stream);
// synchronize() waits for all work queued on that stream. find_backend() returns
// nullptr when the device type has no backend in this build or no device at run time;
// backend_for() throws instead, naming the device.
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
};

Backend* find_backend(DeviceType t);
Backend& backend_for(DeviceType t);

// True when this build has CUDA providers and the runtime sees at least one device.
bool cuda_device_available();

}  // namespace music3
