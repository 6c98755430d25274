#include "gates/ops/support/provider_use.h"

#include "engine/ops/registry.h"

namespace music3::optest {

uint64_t provider_calls(const std::string& name, bool& enabled) {
  for (const ops::ProviderUse& use : ops::registry().usage())
    if (use.name == name) {
      enabled = use.enabled;
      return use.calls;
    }
  enabled = false;
  return 0;
}

}  // namespace music3::optest
