// What an A/B report records about where it ran.
// Contract: gpu_state() returns nvidia-smi's name, driver, SM and memory clocks for every
// GPU ({"available": false, "why": ...} when nvidia-smi is absent or fails), read at the
// moment of the call (the runner reads it at start and at end); cpu_info() the CPU model
// and core count; git_revision() `git rev-parse HEAD` of `repo` with "+dirty" when
// tracked files differ, or "unknown" when git cannot say. None of them throws.
#pragma once
#include <nlohmann/json.hpp>
#include <string>

#include "tools/provenance.h"

namespace music3::bench {

using tools::utc_date;
using tools::utc_now_iso8601;

nlohmann::json gpu_state();
nlohmann::json cpu_info();
std::string git_revision(const std::string& repo);

}  // namespace music3::bench
