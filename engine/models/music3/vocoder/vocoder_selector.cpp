#include "engine/models/music3/vocoder/vocoder_selector.h"

namespace music3::vocoder {

ArmRequest arm_request_from_name(const std::string& name) {
  if (name == "auto") return ArmRequest::Auto;
  if (name == "host") return ArmRequest::Host;
  if (name == "device") return ArmRequest::Device;
  throw std::invalid_argument("unknown vocoder arm '" + name + "' (expected auto, host or device)");
}

ArmRefused::ArmRefused(DeviceType dev, const std::string& why)
    : std::runtime_error("vocoder arm refused on " + std::string(device_type_name(dev)) + ": " + why), device(dev) {}

ArmKind select_vocoder_arm(DeviceType device, ArmRequest request) {
  if (request == ArmRequest::Device)
    throw ArmRefused(device, "no vocoder device arm in this build (the host arm serves CPU only)");
  if (device != DeviceType::CPU)
    throw ArmRefused(device, request == ArmRequest::Host ? "the host arm runs on a CPU device only"
                                                         : "no vocoder device arm in this build");
  return ArmKind::Host;
}

}  // namespace music3::vocoder
