#include "engine/models/music3/vocoder/vocoder_selector.h"

#include "engine/models/music3/vocoder/vocoder_device_arm.h"
#include "engine/models/music3/vocoder/vocoder_host_arm.h"

namespace music3::vocoder {

ArmRequest arm_request_from_name(const std::string& name) {
  if (name == "auto") return ArmRequest::Auto;
  if (name == "host") return ArmRequest::Host;
  if (name == "device") return ArmRequest::Device;
  throw std::invalid_argument("unknown vocoder arm '" + name + "' (expected auto, host or device)");
}

ArmRefused::ArmRefused(DeviceType dev, const std::string& why)
    : std::runtime_error("vocoder arm refused on " + std::string(device_type_name(dev)) + ": " + why), device(dev) {}

ArmKind choose_vocoder_arm(DeviceType device, ArmRequest request) {
  if (device == DeviceType::CPU) return request == ArmRequest::Device ? ArmKind::Device : ArmKind::Host;
  if (request == ArmRequest::Host) throw ArmRefused(device, "the host arm runs on a CPU device only");
  if (!VocoderDeviceArm::providers_present(device))
    throw ArmRefused(device, "no provider there for the vocoder's ops (conv1d, conv_transpose1d, snake, tanh, add)");
  return ArmKind::Device;
}

std::unique_ptr<VocoderArm> make_vocoder_arm(const VocoderWeights& weights, const Queue& q, ArmRequest request) {
  if (choose_vocoder_arm(q.device, request) == ArmKind::Host)
    return std::make_unique<VocoderHostArm>(weights, q.threads);
  return std::make_unique<VocoderDeviceArm>(weights, q);
}

}  // namespace music3::vocoder
