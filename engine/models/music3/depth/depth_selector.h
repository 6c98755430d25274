// The one rule that picks the depth arm for a queue (DESIGN.md: selection is a
// function, not an `if`). Three outcomes, and no fourth:
//  - a CPU queue with request Auto or Host keeps the host arm: nothing is staged and
//    nothing is released, whatever release_host says;
//  - any other queue (or request Device) is staged onto the queue's device, or
//    refused with ArmRefused naming the device and the reason (no backend, no
//    provider for a named op, Host requested on a non-CPU queue);
//  - a quiet fall-back to the host arm on a non-CPU queue never happens.
// A null slot throws std::invalid_argument before anything is looked at.
#pragma once
#include <memory>
#include <stdexcept>
#include <string>

#include "engine/core/device_pool.h"
#include "engine/core/queue.h"
#include "engine/models/music3/depth/depth_arm.h"
#include "engine/models/music3/depth/depth_weights.h"

namespace music3::depth {

enum class ArmRequest { Auto, Host, Device };
ArmRequest arm_request_from_name(const std::string& name);  // "auto" | "host" | "device"

class ArmRefused : public std::runtime_error {
 public:
  ArmRefused(DeviceType dev, const std::string& why);
  DeviceType device;
};

struct SelectionOutcome {
  ArmKind arm = ArmKind::Host;
  bool staged = false;         // weights were copied to the queue's device
  bool release_host = false;   // the caller may drop its host weights
  std::string device;
};

SelectionOutcome select_depth_arm(const Queue& q, ArmRequest request, const DepthWeights& weights, DevicePool* pool,
                                  DepthInstruments& instruments, std::unique_ptr<DepthArm>* slot, bool release_host);

}  // namespace music3::depth
