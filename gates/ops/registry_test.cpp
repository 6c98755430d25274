// Provider-table gate: every op has a CPU provider; a CUDA build registers a CUDA
// provider of every op (a CPU-only build has none); the other device types have none, and
// selecting one throws MissingProvider naming the op and the device. On a table of
// its own: duplicates are refused, priority orders the choice, supports() passes a
// provider over, a disabled provider is never chosen (set_enabled() brings it back), and every choice is counted.
#include <gtest/gtest.h>

#include <set>
#include <string>

#include "engine/ops/ops.h"
#include "engine/ops/registry.h"

namespace music3::ops {
namespace {

std::vector<OpId> all_ops() {
  std::vector<OpId> ops;
  for (int i = 0; i < static_cast<int>(OpId::kCount); ++i) ops.push_back(static_cast<OpId>(i));
  return ops;
}

// A fused op whose entry point issues the ops it fuses where no provider takes it (ops.h: matmul_bt_silu, whose one
// provider is a CUDA GEMV kernel, and add_rms_norm_matmul_bt, which none fuses today): the CPU runs the ops it fuses,
// which have their own.
bool composed_by_its_entry(OpId op) { return !composed_parts(op).empty(); }

TEST(OpRegistry, OnlyTheFusedOpsAreComposed) {
  std::set<std::string> composed;
  for (OpId op : all_ops())
    if (composed_by_its_entry(op)) composed.insert(op_name(op));
  EXPECT_EQ(composed, (std::set<std::string>{"matmul_bt_silu", "add_rms_norm_matmul_bt"}));
}

// A fused op's calls count as the ops its entry would issue, recursively, and only on the device they ran on.
TEST(OpRegistry, PrimitiveOpsRunExpandFusedCalls) {
  OpRegistry r;
  auto noop = [](const Queue&, const void*) {};
  r.add({"cpu.add_rms_norm_matmul_bt.test", OpId::AddRmsNormMatmulBt, DeviceType::CPU, 0, noop});
  r.add({"cpu.qk_norm_rope.test", OpId::QkNormRope, DeviceType::CPU, 0, noop});
  r.add({"cuda.rms_norm.test", OpId::RmsNorm, DeviceType::CUDA, 0, noop});
  r.select(OpId::AddRmsNormMatmulBt, DeviceType::CPU, nullptr);
  r.select(OpId::RmsNorm, DeviceType::CUDA, nullptr);  // another device's call
  std::set<std::string> ran;
  for (OpId op : primitive_ops_run(r, DeviceType::CPU)) ran.insert(op_name(op));
  EXPECT_EQ(ran, (std::set<std::string>{"add_rms_norm", "matmul_bt", "silu_and_mul"}));
}

TEST(OpRegistry, EveryOpHasACpuProvider) {
  for (OpId op : all_ops()) EXPECT_EQ(registry().has(op, DeviceType::CPU), !composed_by_its_entry(op)) << op_name(op);
  EXPECT_EQ(registry().usage().empty(), false);
}

TEST(OpRegistry, CudaProvidersExactlyInCudaBuilds) {
#ifdef MUSIC3_WITH_CUDA
  const bool want = true;
#else
  const bool want = false;
#endif
  std::set<OpId> registered;  // enabled or not: an opt-in provider starts disabled
  for (const auto& u : registry().usage())
    if (u.device == DeviceType::CUDA) registered.insert(u.op);
  // An op composed by its entry point runs the ops it fuses where no provider takes it, so a CUDA build may have no
  // provider of its own for it (add_rms_norm_matmul_bt since session 35); a build without CUDA never has one.
  for (OpId op : all_ops())
    if (!composed_by_its_entry(op) || !want) EXPECT_EQ(registered.count(op) == 1, want) << op_name(op);
}

TEST(OpRegistry, OtherDevicesHaveNoProviderAndLookupNamesOpAndDevice) {
  for (DeviceType dev : all_device_types()) {
    if (dev == DeviceType::CPU || dev == DeviceType::CUDA) continue;
    for (OpId op : all_ops()) {
      EXPECT_FALSE(registry().has(op, dev));
      try {
        registry().select(op, dev, nullptr);
        ADD_FAILURE() << "no MissingProvider for " << op_name(op) << " on " << device_type_name(dev);
      } catch (const MissingProvider& e) {
        const std::string msg = e.what();
        EXPECT_NE(msg.find("'" + op_name(op) + "'"), std::string::npos) << msg;
        EXPECT_NE(msg.find("'" + device_type_name(dev) + "'"), std::string::npos) << msg;
      }
    }
  }
}

TEST(OpRegistry, OpNamesAreDistinctAndReadable) {
  std::set<std::string> names;
  for (OpId op : all_ops()) {
    EXPECT_EQ(op_name(op).find("op#"), std::string::npos);
    names.insert(op_name(op));
  }
  EXPECT_EQ(names.size(), all_ops().size());
}

int g_ran = 0;
void run_a(const Queue&, const void*) { g_ran = 1; }
void run_b(const Queue&, const void*) { g_ran = 2; }
bool only_small(const void* args) { return *static_cast<const int*>(args) <= 4; }

OpRegistry two_providers() {
  OpRegistry r;
  r.add({"cpu.add.small", OpId::Add, DeviceType::CPU, 1, run_a, only_small});
  r.add({"cpu.add.any", OpId::Add, DeviceType::CPU, 0, run_b});
  return r;
}

TEST(ProviderTable, DuplicateNameOrEqualPriorityIsRefused) {
  OpRegistry r = two_providers();
  EXPECT_THROW(r.add({"cpu.add.any", OpId::Add, DeviceType::CPU, 5, run_a}), DuplicateProvider);
  EXPECT_THROW(r.add({"cpu.add.other", OpId::Add, DeviceType::CPU, 1, run_a}), DuplicateProvider);
  EXPECT_THROW(r.add({"", OpId::Add, DeviceType::CPU, 7, run_a}), DuplicateProvider);
  EXPECT_THROW(r.add({"cpu.add.null", OpId::Add, DeviceType::CPU, 8, nullptr}), DuplicateProvider);
}

TEST(ProviderTable, PriorityThenSupportsChooseAndEveryChoiceIsCounted) {
  const OpRegistry r = two_providers();
  const Queue q = cpu_queue(1);
  int small = 2, large = 9;
  EXPECT_EQ(r.select(OpId::Add, DeviceType::CPU, &small).name, "cpu.add.small");
  EXPECT_EQ(r.select(OpId::Add, DeviceType::CPU, &large).name, "cpu.add.any");
  r.select(OpId::Add, DeviceType::CPU, &small).run(q, &small);
  EXPECT_EQ(g_ran, 1);
  uint64_t small_calls = 0, any_calls = 0;
  for (const auto& u : r.usage()) (u.name == "cpu.add.small" ? small_calls : any_calls) = u.calls;
  EXPECT_EQ(small_calls, 2u);
  EXPECT_EQ(any_calls, 1u);
  r.reset_usage();
  for (const auto& u : r.usage()) EXPECT_EQ(u.calls, 0u) << u.name;
}

TEST(ProviderTable, DisabledProviderIsNeverChosenAndUnknownNamesAreRefused) {
  OpRegistry r = two_providers();
  int small = 2;
  r.set_enabled("cpu.add.small", false);
  EXPECT_EQ(r.select(OpId::Add, DeviceType::CPU, &small).name, "cpu.add.any");
  EXPECT_THROW(r.set_enabled("cpu.add.nonesuch", false), std::invalid_argument);
  r.set_enabled("cpu.add.any", false);
  EXPECT_FALSE(r.has(OpId::Add, DeviceType::CPU));
  try {
    r.select(OpId::Add, DeviceType::CPU, &small);
    ADD_FAILURE() << "no MissingProvider with every provider disabled";
  } catch (const MissingProvider& e) {
    EXPECT_NE(std::string(e.what()).find("cpu.add.small (disabled)"), std::string::npos) << e.what();
  }
}

// An opt-in provider outranks the others but stays out of selection until enabled by name; enabled(name) says
// which are in selection (and false for a name never registered).
TEST(ProviderTable, OptInProviderIsOffUntilEnabled) {
  OpRegistry r = two_providers();
  r.add({"cpu.add.tuned", OpId::Add, DeviceType::CPU, 9, run_a, nullptr, /*opt_in=*/true});
  int small = 2;
  EXPECT_EQ(r.select(OpId::Add, DeviceType::CPU, &small).name, "cpu.add.small");
  for (const auto& u : r.usage()) EXPECT_EQ(u.enabled, u.name != "cpu.add.tuned") << u.name;
  EXPECT_FALSE(r.enabled("cpu.add.tuned"));
  EXPECT_TRUE(r.enabled("cpu.add.small"));
  r.set_enabled("cpu.add.tuned", true);
  EXPECT_TRUE(r.enabled("cpu.add.tuned"));
  EXPECT_EQ(r.select(OpId::Add, DeviceType::CPU, &small).name, "cpu.add.tuned");
  r.set_enabled("cpu.add.small", false);
  EXPECT_FALSE(r.enabled("cpu.add.small"));
  EXPECT_FALSE(r.enabled("cpu.add.nonesuch")) << "an unknown name is not enabled";
}

TEST(ProviderTable, SetEnabledTakesOutAndBringsBackAndRefusesUnknownNames) {
  const OpRegistry r = two_providers();
  int small = 2;
  r.set_enabled("cpu.add.small", false);
  EXPECT_EQ(r.select(OpId::Add, DeviceType::CPU, &small).name, "cpu.add.any");
  r.set_enabled("cpu.add.small", true);
  EXPECT_EQ(r.select(OpId::Add, DeviceType::CPU, &small).name, "cpu.add.small");
  EXPECT_THROW(r.set_enabled("cpu.add.nonesuch", true), std::invalid_argument);
  for (const auto& u : r.usage()) EXPECT_TRUE(u.enabled) << u.name;
}

TEST(ProviderTable, UnsupportedCallWithNoFallbackNamesWhy) {
  OpRegistry r;
  r.add({"cpu.add.small", OpId::Add, DeviceType::CPU, 1, run_a, only_small});
  int large = 9;
  try {
    r.select(OpId::Add, DeviceType::CPU, &large);
    ADD_FAILURE() << "no MissingProvider for an unsupported call";
  } catch (const MissingProvider& e) {
    EXPECT_NE(std::string(e.what()).find("does not support this call"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace music3::ops
