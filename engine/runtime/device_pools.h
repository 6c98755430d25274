// One device pool per device (type, ordinal), shared by every component in the
// process, each with an optional memory budget.
// Contract: shared_device_pool(q) returns the pool of q's device, made on first use,
// or nullptr when the queue has no backend. The budget is read once, when the pool is
// made, from MUSIC3_DEVICE_BUDGET_MIB (unset or 0: no budget; otherwise acquire()
// throws DeviceBudgetExceeded past it). The pools live until the process exits (they
// are never destroyed, so no buffer outlives its pool).
// Thread-safety: thread-safe (the pools are).
#pragma once
#include "engine/core/device_pool.h"
#include "engine/core/queue.h"

namespace music3::runtime {

DevicePool* shared_device_pool(const Queue& q);

}  // namespace music3::runtime
