// The recipe a battery report carries: revision, date, machine and tool versions.
// Contract: a tool that cannot be asked is reported as "unavailable (...)", never
// silently left out; compilers are the ones CMake chose for the worktree build.
#pragma once
#include <string>

#include "mutations/runner/build.h"
#include "mutations/runner/outcome.h"

namespace music3::battery {

Provenance collect_provenance(const BuildDir& b, const std::string& revision);

}  // namespace music3::battery
