// How often a named provider has been chosen in this process, for the op gates that check a newer provider took the
// shapes it is for (the registry counts every choice: engine/ops/registry.h).
#pragma once
#include <cstdint>
#include <string>

namespace music3::optest {

// The calls `name` has taken so far; `enabled` says whether it is enabled (a ctest twin may disable it; a build
// without it has no such provider: 0 calls, not enabled).
uint64_t provider_calls(const std::string& name, bool& enabled);

// An opt-in provider's calls over a stretch of a test: expect_took(n) checks that it took n calls since construction
// where it is enabled and none where it is not, naming the provider, its state and `what`.
class OptInCalls {
 public:
  explicit OptInCalls(std::string name);
  bool enabled() const { return enabled_; }
  void expect_took(uint64_t when_enabled, const std::string& what) const;

 private:
  std::string name_;
  bool enabled_ = false;
  uint64_t before_ = 0;
};

}  // namespace music3::optest
