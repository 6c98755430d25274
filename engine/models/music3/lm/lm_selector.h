// The language model's arm under the runtime's selection rule: a CPU queue with
// request Auto or Host runs the host arm; every other queue or a Device request is
// refused with ArmRefused naming the device (this build has no LM device arm, so there
// is nothing to stage); never a quiet fall-back. A null slot throws
// std::invalid_argument. Thread-safety: as the arm's constructor.
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
