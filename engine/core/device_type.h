// The device types the engine knows, each with a name and a lookup by name.
// Contract: the enum is open (a value outside the list is representable and names
// itself "device#N"), all_device_types() lists every named type exactly once, and
// device_type_from_name() is the inverse of device_type_name() (case-insensitive).
// Thread-safety: pure functions over constant tables: thread-safe.
#pragma once
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace music3 {

enum class DeviceType : uint8_t { CPU = 0, CUDA = 1, ROCm = 2, Metal = 3, Vulkan = 4, XPU = 5, Tenstorrent = 6 };

std::span<const DeviceType> all_device_types();
std::string device_type_name(DeviceType t);
std::optional<DeviceType> device_type_from_name(std::string_view name);

}  // namespace music3
