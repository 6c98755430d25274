// The acoustic stage's arm factories under the runtime's selection rule (runtime/arm_selector.h): a CPU queue with
// request Auto or Host gets the host arm (nothing staged); a Device request on a CPU queue, or any other queue,
// stages the device arm (ConditionEncoderDeviceArm, DitDeviceArm) onto the queue's device from its shared pool, or
// is refused with runtime::ArmRefused naming the component ("condition_encoder" or "dit") and the device (no
// backend or pool, no provider for one of the arm's ops(), Host requested off the CPU); never a quiet fall-back.
// The weights and the instruments must outlive the arm; the instruments receive the staging span and the device
// arm's counters. Thread-safety: as the arms' constructors.
#pragma once
#include <memory>

#include "engine/core/queue.h"
#include "engine/models/music3/acoustic/acoustic_arms.h"
#include "engine/models/music3/acoustic/condition_encoder_weights.h"
#include "engine/models/music3/acoustic/dit_weights.h"
#include "engine/runtime/arm.h"

namespace music3::acoustic {

std::unique_ptr<ConditionEncoderArm> make_condition_encoder_arm(const ConditionEncoderWeights& w, const Queue& q,
                                                                runtime::ArmRequest request,
                                                                runtime::ArmInstruments& instruments);
std::unique_ptr<DitArm> make_dit_arm(const DitWeights& w, const Queue& q, runtime::ArmRequest request,
                                     runtime::ArmInstruments& instruments);

}  // namespace music3::acoustic
