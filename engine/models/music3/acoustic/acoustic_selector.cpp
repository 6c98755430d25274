#include "engine/models/music3/acoustic/acoustic_selector.h"

#include "engine/models/music3/acoustic/condition_encoder_host_arm.h"
#include "engine/models/music3/acoustic/dit_host_arm.h"

namespace music3::acoustic {

namespace {
void require_host(const char* component, const Queue& q, runtime::ArmRequest request) {
  if (q.device != DeviceType::CPU || request == runtime::ArmRequest::Device)
    throw runtime::ArmRefused(component, q.device,
                              "this build has no device arm for it; run it on a CPU queue with the host arm");
}
}  // namespace

std::unique_ptr<ConditionEncoderArm> make_condition_encoder_arm(const ConditionEncoderWeights& w, const Queue& q,
                                                                runtime::ArmRequest request) {
  require_host("condition_encoder", q, request);
  return std::make_unique<ConditionEncoderHostArm>(w, q.threads);
}

std::unique_ptr<DitArm> make_dit_arm(const DitWeights& w, const Queue& q, runtime::ArmRequest request) {
  require_host("dit", q, request);
  return std::make_unique<DitHostArm>(w, q.threads);
}

}  // namespace music3::acoustic
