// The one rule that picks a component's arm for a queue. Three outcomes, and no fourth:
//  - a CPU queue with request Auto or Host keeps the host arm: nothing is staged and
//    nothing is released, whatever release_host says;
//  - any other queue (or request Device) is staged onto the queue's device, or
//    refused with ArmRefused naming the component, the device and the reason (no
//    backend, no device pool, no enabled provider for one of the ops the device arm
//    declares it issues, Host requested on a non-CPU queue);
//  - a quiet fall-back to the host arm on a non-CPU queue never happens.
// The op list comes from the device arm itself (DeviceArm::ops()), and the
// reachability gates check it against the provider table's record of what ran.
// A null slot throws std::invalid_argument before anything is looked at.
// Thread-safety: as the arms' constructors; the decision itself is a pure function.
#pragma once
#include <chrono>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include "engine/core/device_pool.h"
#include "engine/core/queue.h"
#include "engine/ops/registry.h"
#include "engine/runtime/arm.h"

namespace music3::runtime {

// The decision alone: the outcome, or ArmRefused.
SelectionOutcome decide_arm(const std::string& component, const Queue& q, ArmRequest request,
                            std::span<const ops::OpId> device_ops, const DevicePool* pool, bool release_host);

template <class Arm>
struct ArmChoices {
  std::span<const ops::OpId> device_ops;            // every op the device arm issues
  std::function<std::unique_ptr<Arm>()> host, device;  // build the arm (device: stages its weights)
};

template <class Arm>
SelectionOutcome select_arm(const std::string& component, const Queue& q, ArmRequest request, const DevicePool* pool,
                            const ArmChoices<Arm>& choices, ArmInstruments& ins, std::unique_ptr<Arm>* slot,
                            bool release_host) {
  if (!slot) throw std::invalid_argument(component + ": null arm slot");
  const SelectionOutcome out = decide_arm(component, q, request, choices.device_ops, pool, release_host);
  if (out.arm == ArmKind::Host) {
    *slot = choices.host();
    return out;
  }
  const auto t0 = std::chrono::steady_clock::now();
  *slot = choices.device();
  ins.staging_ms += std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
  ++ins.staging_count;
  return out;
}

}  // namespace music3::runtime
