// The vocoder's arm selection, on the runtime seam (engine/runtime/arm_selector.h: one rule for every component).
// Contract: choose_vocoder_arm() is runtime::decide_arm for component "vocoder" with the ops the device arm
// issues (VocoderDeviceArm::ops()) and the queue's shared device pool: a CPU queue keeps the host arm for Auto
// and Host and runs the device arm on the CPU providers for Device; any other queue gets the device arm when it
// has a backend, a pool and a provider for every op, and is otherwise refused with runtime::ArmRefused naming
// the component, the device and the reason; never a quiet fall-back to the host arm. make_vocoder_arm() builds
// the chosen arm (the device arm stages the weights onto the queue's device). Thread-safe.
#pragma once
#include <memory>

#include "engine/core/queue.h"
#include "engine/models/music3/vocoder/vocoder_arm.h"
#include "engine/models/music3/vocoder/vocoder_weights.h"
#include "engine/runtime/arm.h"

namespace music3::vocoder {

using runtime::ArmRefused;
using runtime::ArmRequest;

runtime::SelectionOutcome choose_vocoder_arm(const Queue& q, ArmRequest request);
std::unique_ptr<VocoderArm> make_vocoder_arm(const VocoderWeights& weights, const Queue& q, ArmRequest request);

}  // namespace music3::vocoder
