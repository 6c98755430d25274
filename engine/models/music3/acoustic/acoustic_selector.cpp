#include "engine/models/music3/acoustic/acoustic_selector.h"

#include "engine/models/music3/acoustic/condition_encoder_device_arm.h"
#include "engine/models/music3/acoustic/condition_encoder_host_arm.h"
#include "engine/models/music3/acoustic/dit_device_arm.h"
#include "engine/models/music3/acoustic/dit_host_arm.h"
#include "engine/runtime/arm_selector.h"
#include "engine/runtime/device_pools.h"

namespace music3::acoustic {

namespace {
template <class Arm, class HostArm, class DeviceArm, class Weights>
std::unique_ptr<Arm> select(const char* component, const Weights& w, const Queue& q, runtime::ArmRequest request,
                            runtime::ArmInstruments& ins) {
  DevicePool* pool = q.backend ? runtime::shared_device_pool(q) : nullptr;
  runtime::ArmChoices<Arm> choices;
  choices.device_ops = DeviceArm::ops();
  choices.host = [&] { return std::make_unique<HostArm>(w, q.threads); };
  choices.device = [&] { return std::make_unique<DeviceArm>(w, q, *pool, ins); };
  std::unique_ptr<Arm> arm;
  runtime::select_arm<Arm>(component, q, request, pool, choices, ins, &arm, /*release_host=*/false);
  return arm;
}
}  // namespace

std::unique_ptr<ConditionEncoderArm> make_condition_encoder_arm(const ConditionEncoderWeights& w, const Queue& q,
                                                                runtime::ArmRequest request,
                                                                runtime::ArmInstruments& instruments) {
  return select<ConditionEncoderArm, ConditionEncoderHostArm, ConditionEncoderDeviceArm>("condition_encoder", w, q,
                                                                                         request, instruments);
}

std::unique_ptr<DitArm> make_dit_arm(const DitWeights& w, const Queue& q, runtime::ArmRequest request,
                                     runtime::ArmInstruments& instruments) {
  return select<DitArm, DitHostArm, DitDeviceArm>("dit", w, q, request, instruments);
}

}  // namespace music3::acoustic
