#include "gates/ops/support/provider_use.h"

#include <gtest/gtest.h>

#include <utility>

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

OptInCalls::OptInCalls(std::string name) : name_(std::move(name)) { before_ = provider_calls(name_, enabled_); }

void OptInCalls::expect_took(uint64_t when_enabled, const std::string& what) const {
  bool enabled = false;
  EXPECT_EQ(provider_calls(name_, enabled) - before_, enabled_ ? when_enabled : 0)
      << name_ << (enabled_ ? " (enabled)" : " (not enabled)") << " on " << what;
}

}  // namespace music3::optest
