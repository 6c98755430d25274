// How often a named provider has been chosen in this process, for the op gates that check a newer provider took the
// shapes it is for (the registry counts every choice: engine/ops/registry.h).
#pragma once
#include <cstdint>
#include <string>

namespace music3::optest {

// The calls `name` has taken so far; `enabled` says whether it is enabled (a ctest twin may disable it; a build
// without it has no such provider: 0 calls, not enabled).
uint64_t provider_calls(const std::string& name, bool& enabled);

}  // namespace music3::optest
