// The --device and --arm flags every engine command takes, parsed one way.
// Contract: queue_from_flag() returns queue_by_name()'s queue (a device with no backend here
// gets a fabricated queue, which arm selection refuses by name); arm_from_flag() returns the
// arm request. Both throw UsageError naming the flag when the value is unknown.
// Thread-safety: stateless, thread-safe.
#pragma once
#include <string>

#include "engine/core/queue.h"
#include "engine/runtime/arm.h"

namespace music3::cli {

Queue queue_from_flag(const std::string& device, int threads);
runtime::ArmRequest arm_from_flag(const std::string& name);

}  // namespace music3::cli
