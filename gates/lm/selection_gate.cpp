// Gate lm.selection: the language model's arm selection, driven from a CPU-only machine
// through fabricated queues. A CPU queue (Auto or Host) runs the host arm and stages
// nothing; every non-CPU device type the enum knows, and a Device request on a CPU queue,
// is refused with ArmRefused naming the device (this build has no LM device arm; a quiet
// fall-back to the host arm is the defect); a null slot throws.
#include <gtest/gtest.h>

#include "engine/models/music3/lm/lm_loader.h"
#include "engine/models/music3/lm/lm_selector.h"
#include "gates/lib/gate_env.h"
#include "gates/lib/gate_record.h"
#include "gates/lm/lm_oracle.h"

namespace music3::gates {
namespace {

const lm::LmWeights& weights() {
  static const lm::LmWeights w = lm::load_lm_checkpoint(lm_checkpoint_dir({"tiny", 0}));
  return w;
}

TEST(LmSelection, CpuQueueRunsTheHostArmAndStagesNothing) {
  for (auto request : {runtime::ArmRequest::Auto, runtime::ArmRequest::Host}) {
    runtime::ArmInstruments ins;
    std::unique_ptr<lm::LmArm> slot;
    const auto out = lm::select_lm_arm(cpu_queue(), request, weights(), ins, &slot);
    ASSERT_TRUE(slot);
    EXPECT_EQ(slot->kind(), runtime::ArmKind::Host);
    EXPECT_EQ(out.arm, runtime::ArmKind::Host);
    EXPECT_FALSE(out.staged);
    EXPECT_EQ(ins.staging_count, 0u);
    record("lm.selection", request == runtime::ArmRequest::Auto ? "auto" : "host", "cpu.host_nothing_staged",
           slot->kind() == runtime::ArmKind::Host && !out.staged, 1, BoundKind::Lower);
  }
}

TEST(LmSelection, EveryOtherDeviceIsRefusedByName) {
  int tried = 0, refused = 0;
  for (DeviceType t : all_device_types()) {
    if (t == DeviceType::CPU) continue;
    ++tried;
    const Queue q = (t == DeviceType::CUDA && cuda_device_available()) ? cuda_queue() : fabricated_queue(t);
    runtime::ArmInstruments ins;
    std::unique_ptr<lm::LmArm> slot;
    try {
      lm::select_lm_arm(q, runtime::ArmRequest::Auto, weights(), ins, &slot);
      ADD_FAILURE() << device_type_name(t) << ": selected an arm without a device arm (quiet fall-back)";
    } catch (const runtime::ArmRefused& e) {
      EXPECT_NE(std::string(e.what()).find("'" + device_type_name(t) + "'"), std::string::npos) << e.what();
      EXPECT_EQ(e.device, t);
      EXPECT_FALSE(slot);
      ++refused;
    }
  }
  EXPECT_EQ(refused, tried);
  record("lm.selection", "all", "devices.refused_of_tried", double(refused) / tried, 1, BoundKind::Lower);
  runtime::ArmInstruments ins;
  std::unique_ptr<lm::LmArm> slot;
  EXPECT_THROW(lm::select_lm_arm(cpu_queue(), runtime::ArmRequest::Device, weights(), ins, &slot),
               runtime::ArmRefused);
  EXPECT_THROW(lm::select_lm_arm(cpu_queue(), runtime::ArmRequest::Auto, weights(), ins, nullptr),
               std::invalid_argument);
}

}  // namespace
}  // namespace music3::gates

int main(int argc, char** argv) { return music3::gates::gate_main(argc, argv); }
