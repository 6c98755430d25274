#include "engine/models/music3/vocoder/vocoder_selector.h"

#include "engine/models/music3/vocoder/vocoder_device_arm.h"
#include "engine/models/music3/vocoder/vocoder_host_arm.h"
#include "engine/runtime/arm_selector.h"
#include "engine/runtime/device_pools.h"

namespace music3::vocoder {

runtime::SelectionOutcome choose_vocoder_arm(const Queue& q, ArmRequest request) {
  return runtime::decide_arm("vocoder", q, request, VocoderDeviceArm::ops(), runtime::shared_device_pool(q), false);
}

std::unique_ptr<VocoderArm> make_vocoder_arm(const VocoderWeights& weights, const Queue& q, ArmRequest request) {
  if (choose_vocoder_arm(q, request).arm == ArmKind::Host) return std::make_unique<VocoderHostArm>(weights, q.threads);
  return std::make_unique<VocoderDeviceArm>(weights, q);
}

}  // namespace music3::vocoder
