// Gate depth.selection: arm selection, driven from a CPU-only machine through fabricated queues.
// A CPU queue stages nothing, keeps the host arm and releases nothing (even when
// asked to); the non-CPU device types are exactly the seed's list (CUDA, ROCm, Metal,
// Vulkan, XPU, Tenstorrent), each staged where a real backend exists (CUDA on the GPU
// box) and refused by name everywhere else; a null staging slot throws.
#include <gtest/gtest.h>

#include "engine/models/music3/depth/depth_selector.h"
#include "gates/lib/gate_env.h"
#include "gates/lib/gate_record.h"
#include "gates/depth/depth_oracle_cases.h"

namespace music3::gates {
namespace {

const depth::DepthWeights& weights() {
  static const depth::DepthWeights w = load_case_weights({"default", 0});
  return w;
}

TEST(DepthSelection, CpuQueueKeepsHostArmAndStagesNothing) {
  for (bool release : {false, true}) {
    const Queue q = cpu_queue();
    DevicePool pool(*q.backend);
    depth::DepthInstruments ins;
    std::unique_ptr<depth::DepthArm> slot;
    const auto out = depth::select_depth_arm(q, depth::ArmRequest::Auto, weights(), &pool, ins, &slot, release);
    ASSERT_TRUE(slot);
    EXPECT_EQ(slot->kind(), depth::ArmKind::Host);
    EXPECT_EQ(out.arm, depth::ArmKind::Host);
    EXPECT_FALSE(out.staged);
    EXPECT_FALSE(out.release_host) << "a CPU queue must release nothing, release_host=" << release;
    EXPECT_EQ(ins.staging_count, 0u);
    EXPECT_EQ(ins.staged_bytes, 0u);
    EXPECT_EQ(pool.stats().backend_allocs, 0u);
    record("depth.selection", release ? "cpu/release" : "cpu", "host_kept_nothing_staged",
           slot->kind() == depth::ArmKind::Host && !out.staged && !out.release_host, 1, BoundKind::Lower);
  }
}

// The device types the seed's selector was driven with, written out here rather than read from the enum.
const std::vector<std::string> kSeedDevices{"cuda", "rocm", "metal", "vulkan", "xpu", "tenstorrent"};

TEST(DepthSelection, EveryNonCpuDeviceIsStagedOrRefusedByName) {
  int staged = 0, refused = 0;
  std::vector<std::string> tried;
  for (DeviceType t : all_device_types()) {
    if (t == DeviceType::CPU) continue;
    tried.push_back(device_type_name(t));
    // A real CUDA queue where a device exists (the GPU box); otherwise a fabricated
    // queue, which has no backend. Probing CUDA leaves no sticky error (backend.h).
    const Queue q = (t == DeviceType::CUDA && cuda_device_available()) ? cuda_queue() : fabricated_queue(t);
    std::unique_ptr<DevicePool> pool = q.backend ? std::make_unique<DevicePool>(*q.backend) : nullptr;
    depth::DepthInstruments ins;
    std::unique_ptr<depth::DepthArm> slot;
    try {
      const auto out = depth::select_depth_arm(q, depth::ArmRequest::Auto, weights(), pool.get(), ins, &slot, false);
      ASSERT_TRUE(slot) << device_type_name(t);
      EXPECT_EQ(slot->kind(), depth::ArmKind::Device) << device_type_name(t) << ": quiet fall-back to the host arm";
      EXPECT_TRUE(out.staged) << device_type_name(t);
      EXPECT_GT(ins.staged_bytes, 0u) << device_type_name(t);
      if (slot->kind() == depth::ArmKind::Device && out.staged) ++staged;
    } catch (const depth::ArmRefused& e) {
      EXPECT_NE(std::string(e.what()).find("'" + device_type_name(t) + "'"), std::string::npos) << e.what();
      EXPECT_EQ(e.device, t);
      EXPECT_FALSE(slot) << device_type_name(t) << ": refused but left an arm in the slot";
      ++refused;
    }
    slot.reset();
  }
  EXPECT_EQ(tried, kSeedDevices);
  // Only a real CUDA device has a backend to stage onto; every fabricated queue is refused.
  const int expect_staged = cuda_device_available() ? 1 : 0;
  EXPECT_EQ(staged, expect_staged);
  EXPECT_EQ(refused, int(kSeedDevices.size()) - expect_staged);
  record("depth.selection", "fabricated", "refused", refused, int(kSeedDevices.size()) - expect_staged, BoundKind::Lower);
  record("depth.selection", "fabricated", "staged", staged, expect_staged);
}

TEST(DepthSelection, NullSlotThrows) {
  const Queue q = cpu_queue();
  depth::DepthInstruments ins;
  EXPECT_THROW(depth::select_depth_arm(q, depth::ArmRequest::Auto, weights(), nullptr, ins, nullptr, false),
               std::invalid_argument);
}

TEST(DepthSelection, HostRequestOnNonCpuQueueIsRefused) {
  const Queue q = fabricated_queue(DeviceType::Vulkan);
  depth::DepthInstruments ins;
  std::unique_ptr<depth::DepthArm> slot;
  EXPECT_THROW(depth::select_depth_arm(q, depth::ArmRequest::Host, weights(), nullptr, ins, &slot, false),
               depth::ArmRefused);
  EXPECT_FALSE(slot);
}

}  // namespace
}  // namespace music3::gates

int main(int argc, char** argv) { return music3::gates::gate_main(argc, argv); }
