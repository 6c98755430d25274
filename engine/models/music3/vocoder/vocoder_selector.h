// The one rule that picks the vocoder arm for a device (DESIGN.md: selection is a function, not an `if`).
// Contract: a CPU device with request Auto or Host gets the host arm; any other device, or request Device, is
// refused with ArmRefused naming the device and the reason (this build has no vocoder device arm, so a CUDA
// device is refused, never quietly decoded on the host). Pure function (thread-safe).
#pragma once
#include <stdexcept>
#include <string>

#include "engine/core/device_type.h"

namespace music3::vocoder {

enum class ArmRequest { Auto, Host, Device };
enum class ArmKind { Host };
ArmRequest arm_request_from_name(const std::string& name);  // "auto" | "host" | "device"; throws otherwise

class ArmRefused : public std::runtime_error {
 public:
  ArmRefused(DeviceType dev, const std::string& why);
  DeviceType device;
};

ArmKind select_vocoder_arm(DeviceType device, ArmRequest request);

}  // namespace music3::vocoder
