#include "engine/models/music3/lm/lm_selector.h"

#include "engine/models/music3/lm/lm_device_arm.h"
#include "engine/models/music3/lm/lm_host_arm.h"
#include "engine/runtime/arm_selector.h"
#include "engine/runtime/device_pools.h"

namespace music3::lm {

runtime::SelectionOutcome select_lm_arm(const Queue& q, runtime::ArmRequest request, const LmWeights& weights,
                                        runtime::ArmInstruments& instruments, std::unique_ptr<LmArm>* slot) {
  DevicePool* pool = q.backend ? runtime::shared_device_pool(q) : nullptr;
  runtime::ArmChoices<LmArm> choices;
  choices.device_ops = LmDeviceArm::ops();
  choices.host = [&] { return std::make_unique<LmHostArm>(weights, q.threads, instruments); };
  choices.device = [&] { return std::make_unique<LmDeviceArm>(weights, q, *pool, instruments); };
  return runtime::select_arm<LmArm>("lm", q, request, pool, choices, instruments, slot, /*release_host=*/false);
}

}  // namespace music3::lm
