// The one rule that picks the vocoder arm for a queue (DESIGN.md: selection is a function, not an `if`).
// Contract (choose_vocoder_arm): a CPU device gets the host arm for Auto and Host, and the device arm on the
// CPU providers for Device; any other device gets the device arm when every op it calls has a provider there,
// and is otherwise refused with ArmRefused naming the device and the reason; Host on a non-CPU device is
// refused. Never a quiet fall-back to the host arm. make_vocoder_arm() builds the chosen arm (the device arm
// stages the weights onto the queue's device). Both are safe from any thread.
#pragma once
#include <memory>
#include <stdexcept>
#include <string>

#include "engine/core/queue.h"
#include "engine/models/music3/vocoder/vocoder_arm.h"
#include "engine/models/music3/vocoder/vocoder_weights.h"

namespace music3::vocoder {

enum class ArmRequest { Auto, Host, Device };
ArmRequest arm_request_from_name(const std::string& name);  // "auto" | "host" | "device"; throws otherwise

class ArmRefused : public std::runtime_error {
 public:
  ArmRefused(DeviceType dev, const std::string& why);
  DeviceType device;
};

ArmKind choose_vocoder_arm(DeviceType device, ArmRequest request);
std::unique_ptr<VocoderArm> make_vocoder_arm(const VocoderWeights& weights, const Queue& q, ArmRequest request);

}  // namespace music3::vocoder
