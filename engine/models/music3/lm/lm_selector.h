// The language model's arm under the runtime's selection rule (runtime/arm_selector.h):
// a CPU queue with request Auto or Host runs the host arm; a Device request on a CPU
// queue, or any other queue, stages the device arm (LmDeviceArm) onto the queue's
// device from its shared pool, or is refused with ArmRefused naming the device (no
// backend or pool, or no provider for one of LmDeviceArm::ops()); never a quiet
// fall-back. A null slot throws std::invalid_argument. Thread-safety: as the arms'
// constructors.
#pragma once
#include <memory>

#include "engine/core/queue.h"
#include "engine/models/music3/lm/lm_arm.h"
#include "engine/models/music3/lm/lm_weights.h"
#include "engine/runtime/arm.h"

namespace music3::lm {

runtime::SelectionOutcome select_lm_arm(const Queue& q, runtime::ArmRequest request, const LmWeights& weights,
                                        runtime::ArmInstruments& instruments, std::unique_ptr<LmArm>* slot);

}  // namespace music3::lm
