// The depth stage's arms under the runtime's one selection rule
// (engine/runtime/arm_selector.h): the host arm on a CPU queue (Auto or Host), the
// device arm staged on any queue whose device has a provider for every op
// DepthDeviceArm::ops() lists, or ArmRefused naming the device; never a quiet
// fall-back. A null slot throws std::invalid_argument before anything is looked at.
// Thread-safety: as the arms' constructors.
#pragma once
#include <memory>

#include "engine/core/device_pool.h"
#include "engine/core/queue.h"
#include "engine/models/music3/depth/depth_arm.h"
#include "engine/models/music3/depth/depth_weights.h"
#include "engine/runtime/arm_selector.h"

namespace music3::depth {

using runtime::arm_request_from_name;
using runtime::ArmRefused;
using runtime::ArmRequest;
using runtime::SelectionOutcome;

SelectionOutcome select_depth_arm(const Queue& q, ArmRequest request, const DepthWeights& weights, DevicePool* pool,
                                  DepthInstruments& instruments, std::unique_ptr<DepthArm>* slot, bool release_host);

}  // namespace music3::depth
