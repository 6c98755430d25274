#include "engine/core/device_type.h"

#include <array>
#include <cctype>

namespace music3 {
namespace {
constexpr std::array<DeviceType, 7> kAll{DeviceType::CPU,    DeviceType::CUDA, DeviceType::ROCm,       DeviceType::Metal,
                                         DeviceType::Vulkan, DeviceType::XPU,  DeviceType::Tenstorrent};
constexpr std::array<std::string_view, 7> kNames{"cpu", "cuda", "rocm", "metal", "vulkan", "xpu", "tenstorrent"};

bool iequal(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != b[i]) return false;
  return true;
}
}  // namespace

std::span<const DeviceType> all_device_types() { return kAll; }

std::string device_type_name(DeviceType t) {
  auto i = static_cast<size_t>(t);
  if (i < kNames.size()) return std::string(kNames[i]);
  return "device#" + std::to_string(i);
}

std::optional<DeviceType> device_type_from_name(std::string_view name) {
  for (size_t i = 0; i < kNames.size(); ++i)
    if (iequal(name, kNames[i])) return kAll[i];
  return std::nullopt;
}

}  // namespace music3
