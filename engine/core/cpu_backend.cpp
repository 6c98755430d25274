#include "engine/core/cpu_backend.h"

#include <cstdlib>
#include <cstring>
#include <new>
#include <stdexcept>
#include <string>

namespace music3 {
namespace {
class CpuBackend final : public Backend {
 public:
  DeviceType type() const override { return DeviceType::CPU; }
  void* alloc(size_t bytes) override {
    // 64-byte alignment: a cache line, and enough for any vector load.
    void* p = std::aligned_alloc(64, (bytes + 63) / 64 * 64 + 64);
    if (!p) throw std::runtime_error("cpu: allocation of " + std::to_string(bytes) + " bytes failed");
    return p;
  }
  void free(void* p) override { std::free(p); }
  void copy(void* dst, const void* src, size_t bytes, CopyKind, void*) override {
    if (bytes) std::memcpy(dst, src, bytes);
  }
  void synchronize(void*) override {}
};
}  // namespace

Backend& cpu_backend() {
  static CpuBackend b;
  return b;
}
}  // namespace music3
