#include "engine/core/backend.h"

#include <cstdlib>
#include <stdexcept>
#include <string>

#include "engine/core/cpu_backend.h"
#ifdef MUSIC3_WITH_CUDA
#include "engine/core/cuda/cuda_backend.h"
#endif

namespace music3 {

Backend* find_backend(DeviceType t) {
  if (t == DeviceType::CPU) return &cpu_backend();
#ifdef MUSIC3_WITH_CUDA
  if (t == DeviceType::CUDA && cuda_device_available()) return &cuda_backend();
#endif
  return nullptr;
}

Backend& backend_for(DeviceType t) {
  Backend* b = find_backend(t);
  if (!b) throw std::runtime_error("no backend for device '" + device_type_name(t) +
                                   "' in this build or on this machine");
  return *b;
}

void Backend::begin_capture(void*) { throw std::logic_error("backend '" + device_type_name(type()) + "' has no graphs"); }
void* Backend::end_capture(void*) { throw std::logic_error("backend '" + device_type_name(type()) + "' has no graphs"); }
void Backend::launch_graph(void*, void*) { throw std::logic_error("backend '" + device_type_name(type()) + "' has no graphs"); }
void Backend::destroy_graph(void*) {}
void* Backend::alloc_host(size_t bytes) {
  void* p = std::malloc(bytes ? bytes : 1);
  if (!p) throw std::runtime_error("host staging: allocation of " + std::to_string(bytes) + " bytes failed");
  return p;
}
void Backend::free_host(void* p) { std::free(p); }
void Backend::copy_to_host_async(void* dst, const void* src, size_t bytes, void* stream) {
  copy(dst, src, bytes, CopyKind::DeviceToHost, stream);
}
void Backend::mark(void*, void*) {}
void Backend::wait_mark(void*) {}
void Backend::delete_mark(void*) {}

bool cuda_device_available() {
#ifdef MUSIC3_WITH_CUDA
  return cuda_runtime_device_count() > 0;
#else
  return false;
#endif
}

}  // namespace music3
