#include "engine/runtime/arm_selector.h"

namespace music3::runtime {

SelectionOutcome decide_arm(const std::string& component, const Queue& q, ArmRequest request,
                            std::span<const ops::OpId> device_ops, const DevicePool* pool, bool release_host) {
  SelectionOutcome out;
  out.device = device_type_name(q.device);
  if (q.is_cpu() && request != ArmRequest::Device) return out;  // host arm: nothing staged, nothing released
  if (request == ArmRequest::Host) throw ArmRefused(component, q.device, "the host arm runs only on a CPU queue");
  if (!q.backend) throw ArmRefused(component, q.device, "no backend for this device in this build or on this machine");
  if (!pool) throw ArmRefused(component, q.device, "no device pool");
  for (ops::OpId op : device_ops)
    if (!ops::registry().has(op, q.device))
      throw ArmRefused(component, q.device, "no provider for op '" + ops::op_name(op) + "'");
  out.arm = ArmKind::Device;
  out.staged = true;
  out.release_host = release_host;
  return out;
}

}  // namespace music3::runtime
