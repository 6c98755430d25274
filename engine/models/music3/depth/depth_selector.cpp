#include "engine/models/music3/depth/depth_selector.h"

#include <chrono>

#include "engine/models/music3/depth/depth_device_arm.h"
#include "engine/models/music3/depth/depth_host_arm.h"
#include "engine/ops/registry.h"

namespace music3::depth {

ArmRequest arm_request_from_name(const std::string& name) {
  if (name == "auto") return ArmRequest::Auto;
  if (name == "host") return ArmRequest::Host;
  if (name == "device") return ArmRequest::Device;
  throw std::invalid_argument("unknown arm '" + name + "' (expected auto, host or device)");
}

ArmRefused::ArmRefused(DeviceType dev, const std::string& why)
    : std::runtime_error("depth device arm refused on device '" + device_type_name(dev) + "': " + why), device(dev) {}

namespace {
// Every op the device arm issues; a device lacking any of them is refused by name.
constexpr ops::OpId kDeviceArmOps[] = {ops::OpId::AddRmsNorm,      ops::OpId::MatmulBT,        ops::OpId::KvAppendAttention,
                                       ops::OpId::SiluAndMul,      ops::OpId::EmbeddingGather, ops::OpId::CfgTopkSample,
                                       ops::OpId::ExpDraws};
}  // namespace

SelectionOutcome select_depth_arm(const Queue& q, ArmRequest request, const DepthWeights& weights, DevicePool* pool,
                                  DepthInstruments& instruments, std::unique_ptr<DepthArm>* slot, bool release_host) {
  if (!slot) throw std::invalid_argument("select_depth_arm: null staging slot");
  SelectionOutcome out;
  out.device = device_type_name(q.device);
  if (q.is_cpu() && request != ArmRequest::Device) {
    *slot = std::make_unique<DepthHostArm>(weights, q.threads, instruments);
    return out;  // host arm: nothing staged, nothing released
  }
  if (request == ArmRequest::Host) throw ArmRefused(q.device, "the host arm runs only on a CPU queue");
  if (!q.backend) throw ArmRefused(q.device, "no backend for this device in this build or on this machine");
  if (!pool) throw ArmRefused(q.device, "no device pool");
  for (ops::OpId op : kDeviceArmOps)
    if (!ops::registry().has(op, q.device)) throw ArmRefused(q.device, "no provider for op '" + ops::op_name(op) + "'");
  const auto t0 = std::chrono::steady_clock::now();
  *slot = std::make_unique<DepthDeviceArm>(weights, q, *pool, instruments);
  instruments.staging_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  ++instruments.staging_count;
  out.arm = ArmKind::Device;
  out.staged = true;
  out.release_host = release_host;
  return out;
}

}  // namespace music3::depth
