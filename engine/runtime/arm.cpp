#include "engine/runtime/arm.h"

namespace music3::runtime {

std::string arm_name(ArmKind k) { return k == ArmKind::Host ? "host" : "device"; }

ArmRequest arm_request_from_name(const std::string& name) {
  if (name == "auto") return ArmRequest::Auto;
  if (name == "host") return ArmRequest::Host;
  if (name == "device") return ArmRequest::Device;
  throw std::invalid_argument("unknown arm '" + name + "' (expected auto, host or device)");
}

ArmRefused::ArmRefused(const std::string& component, DeviceType dev, const std::string& why)
    : std::runtime_error(component + " device arm refused on device '" + device_type_name(dev) + "': " + why),
      device(dev) {}

}  // namespace music3::runtime
