#include "engine/models/music3/lm/lm_selector.h"

#include <stdexcept>

#include "engine/models/music3/lm/lm_host_arm.h"

namespace music3::lm {

runtime::SelectionOutcome select_lm_arm(const Queue& q, runtime::ArmRequest request, const LmWeights& weights,
                                        runtime::ArmInstruments& instruments, std::unique_ptr<LmArm>* slot) {
  if (!slot) throw std::invalid_argument("lm: null arm slot");
  if (q.device != DeviceType::CPU || request == runtime::ArmRequest::Device)
    throw runtime::ArmRefused("lm", q.device, "this build has no language-model device arm; run it on a CPU queue "
                                              "with the host arm");
  *slot = std::make_unique<LmHostArm>(weights, q.threads, instruments);
  runtime::SelectionOutcome out;
  out.arm = runtime::ArmKind::Host;
  out.device = device_type_name(q.device);
  return out;
}

}  // namespace music3::lm
