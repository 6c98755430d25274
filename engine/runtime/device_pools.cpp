#include "engine/runtime/device_pools.h"

#include <cstdlib>
#include <map>
#include <mutex>
#include <stdexcept>
#include <string>
#include <utility>

namespace music3::runtime {
namespace {

size_t budget_from_env() {
  const char* v = std::getenv("MUSIC3_DEVICE_BUDGET_MIB");
  if (!v || !*v) return 0;
  char* end = nullptr;
  const unsigned long long mib = std::strtoull(v, &end, 10);
  if (*end != '\0' || mib > (~size_t{0} >> 20))
    throw std::invalid_argument(std::string("MUSIC3_DEVICE_BUDGET_MIB: expected a whole number of MiB, got '") + v + "'");
  return static_cast<size_t>(mib) << 20;
}

}  // namespace

DevicePool* shared_device_pool(const Queue& q) {
  if (!q.backend) return nullptr;
  static std::mutex mu;
  static auto* pools = new std::map<std::pair<DeviceType, int>, DevicePool*>();
  std::lock_guard lock(mu);
  DevicePool*& p = (*pools)[{q.device, q.ordinal}];
  if (!p) p = new DevicePool(*q.backend, budget_from_env());
  return p;
}

}  // namespace music3::runtime
