// Gate lm.selection: the language model's arm selection, driven from a CPU-only machine
// through fabricated queues. A CPU queue (Auto or Host) runs the host arm and stages
// nothing; a Device request on a CPU queue stages the device arm once (CPU providers);
// a CUDA queue on a machine with a GPU stages the device arm; every other device type the
// enum knows (fabricated: no backend, no providers) is refused with ArmRefused naming the
// device (a quiet fall-back to the host arm is the defect); a null slot throws.
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

TEST(LmSelection, DeviceRequestOnACpuQueueStagesTheDeviceArm) {
  runtime::ArmInstruments ins;
  std::unique_ptr<lm::LmArm> slot;
  const auto out = lm::select_lm_arm(cpu_queue(), runtime::ArmRequest::Device, weights(), ins, &slot);
  ASSERT_TRUE(slot);
  EXPECT_EQ(slot->kind(), runtime::ArmKind::Device);
  EXPECT_EQ(out.arm, runtime::ArmKind::Device);
  EXPECT_EQ(ins.staging_count, 1u);
  EXPECT_GT(ins.staged_bytes, 0u);
  record("lm.selection", "device", "cpu.device_staged_once", slot->kind() == runtime::ArmKind::Device &&
         ins.staging_count == 1, 1, BoundKind::Lower);
}

TEST(LmSelection, EveryOtherDeviceIsStagedOrRefusedByName) {
  int tried = 0, refused = 0;
  for (DeviceType t : all_device_types()) {
    if (t == DeviceType::CPU) continue;
    if (t == DeviceType::CUDA && cuda_device_available()) {
      runtime::ArmInstruments ins;
      std::unique_ptr<lm::LmArm> slot;
      lm::select_lm_arm(cuda_queue(), runtime::ArmRequest::Auto, weights(), ins, &slot);
      ASSERT_TRUE(slot);
      EXPECT_EQ(slot->kind(), runtime::ArmKind::Device);
      EXPECT_EQ(ins.staging_count, 1u);
      continue;
    }
    ++tried;
    const Queue q = fabricated_queue(t);
    runtime::ArmInstruments ins;
    std::unique_ptr<lm::LmArm> slot;
    try {
      lm::select_lm_arm(q, runtime::ArmRequest::Auto, weights(), ins, &slot);
      ADD_FAILURE() << device_type_name(t) << ": selected an arm on a device without providers (quiet fall-back)";
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
  EXPECT_THROW(lm::select_lm_arm(cpu_queue(), runtime::ArmRequest::Auto, weights(), ins, nullptr),
               std::invalid_argument);
}

}  // namespace
}  // namespace music3::gates

int main(int argc, char** argv) { return music3::gates::gate_main(argc, argv); }
