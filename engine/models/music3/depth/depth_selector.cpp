#include "engine/models/music3/depth/depth_selector.h"

#include "engine/models/music3/depth/depth_device_arm.h"
#include "engine/models/music3/depth/depth_host_arm.h"

namespace music3::depth {

SelectionOutcome select_depth_arm(const Queue& q, ArmRequest request, const DepthWeights& weights, DevicePool* pool,
                                  DepthInstruments& instruments, std::unique_ptr<DepthArm>* slot, bool release_host) {
  runtime::ArmChoices<DepthArm> choices;
  choices.device_ops = DepthDeviceArm::ops();
  choices.host = [&] { return std::make_unique<DepthHostArm>(weights, q.threads, instruments); };
  choices.device = [&] { return std::make_unique<DepthDeviceArm>(weights, q, *pool, instruments); };
  return runtime::select_arm<DepthArm>("depth", q, request, pool, choices, instruments, slot, release_host);
}

}  // namespace music3::depth
