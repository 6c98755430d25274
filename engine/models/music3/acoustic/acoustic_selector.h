// The acoustic stage's arm factories under the runtime's selection rule. This build has host arms only: a CPU
// queue with request Auto or Host gets the host arm (nothing staged); any other queue, or a Device request, is
// refused with runtime::ArmRefused naming the component ("condition_encoder" or "dit") and the device; never a
// quiet fall-back. The weights must outlive the arm. Thread-safety: as the arms' constructors.
#pragma once
#include <memory>

#include "engine/core/queue.h"
#include "engine/models/music3/acoustic/acoustic_arms.h"
#include "engine/models/music3/acoustic/condition_encoder_weights.h"
#include "engine/models/music3/acoustic/dit_weights.h"

namespace music3::acoustic {

std::unique_ptr<ConditionEncoderArm> make_condition_encoder_arm(const ConditionEncoderWeights& w, const Queue& q,
                                                                runtime::ArmRequest request);
std::unique_ptr<DitArm> make_dit_arm(const DitWeights& w, const Queue& q, runtime::ArmRequest request);

}  // namespace music3::acoustic
