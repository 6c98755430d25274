// The A/B runner's provider sets (bench/ab/provider_set_arm.h): a spec's +disable=/+enable= suffixes parsed and
// refused by name; the set in force while the inner arm is built and while it runs, and the registry restored after
// each (also when building it throws); unknown providers and out-of-process kinds refused. CPU only, no timing.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "bench/ab/provider_set_arm.h"
#include "engine/ops/registry.h"

namespace music3::bench {
namespace {

// Records whether cpu.snake was enabled when it was built and when it ran.
class ProbeArm : public Arm {
 public:
  explicit ProbeArm(bool* built_with) { *built_with = ops::registry().enabled("cpu.snake"); }
  std::vector<double> run_repetition(int, int) override {
    ran_with = ops::registry().enabled("cpu.snake");
    return {1.0};
  }
  nlohmann::json describe() const override { return {{"arm", "probe"}}; }
  std::string gated_binary() const override { return ""; }
  bool ran_with = true;
};

TEST(AbProviderSet, SplitsTheSuffixes) {
  auto [base, toggles] = split_provider_set("vocoder:device:cuda:full+disable=a.b,c.d+enable=e.f");
  EXPECT_EQ(base, "vocoder:device:cuda:full");
  ASSERT_EQ(toggles.size(), 3u);
  EXPECT_EQ(toggles[0].name, "a.b");
  EXPECT_FALSE(toggles[0].enabled);
  EXPECT_EQ(toggles[1].name, "c.d");
  EXPECT_EQ(toggles[2].name, "e.f");
  EXPECT_TRUE(toggles[2].enabled);
  EXPECT_TRUE(split_provider_set("depth:device:cpu:tiny").second.empty());
}

TEST(AbProviderSet, RefusesMalformedSuffixesAndOutOfProcessKinds) {
  for (const std::string spec : {"depth:device:cpu+disable=", "depth:device:cpu+disable=a,,b",
                                 "vocoder-peer:upstream:cuda+disable=cpu.snake", "cmd:run.sh+disable=cpu.snake",
                                 "depth:device:cpu+disable=cpu.snake+keep=x"}) {
    try {
      split_provider_set(spec);
      ADD_FAILURE() << spec << " was accepted";
    } catch (const std::invalid_argument& e) {
      EXPECT_NE(std::string(e.what()).find("arm '" + spec + "'"), std::string::npos) << e.what();
    }
  }
}

TEST(AbProviderSet, TheSetHoldsWhileBuildingAndRunningAndIsRestoredAfter) {
  bool built_with = true;
  ProbeArm* probe = nullptr;
  ProviderSetArm arm("probe+disable=cpu.snake", {{"cpu.snake", false}}, [&] {
    auto p = std::make_unique<ProbeArm>(&built_with);
    probe = p.get();
    return p;
  });
  EXPECT_FALSE(built_with) << "cpu.snake is off while the inner arm is built";
  EXPECT_TRUE(ops::registry().enabled("cpu.snake")) << "and on again after";
  arm.run_repetition(0, 1);
  EXPECT_FALSE(probe->ran_with) << "off while it runs";
  EXPECT_TRUE(ops::registry().enabled("cpu.snake")) << "and on again after";
  EXPECT_EQ(arm.describe()["providers_disabled"], nlohmann::json::array({"cpu.snake"}));
}

TEST(AbProviderSet, RestoresAfterAFailedBuildAndRefusesUnknownProviders) {
  try {
    ProviderSetArm arm("probe+disable=cpu.snake", {{"cpu.snake", false}},
                       []() -> std::unique_ptr<Arm> { throw std::runtime_error("no arm"); });
    ADD_FAILURE() << "the inner arm's failure was swallowed";
  } catch (const std::runtime_error&) {
  }
  EXPECT_TRUE(ops::registry().enabled("cpu.snake"));
  try {
    ProviderSetArm arm("probe+disable=cpu.no_such", {{"cpu.no_such", false}},
                       []() -> std::unique_ptr<Arm> { return nullptr; });
    ADD_FAILURE() << "an unknown provider was accepted";
  } catch (const std::invalid_argument& e) {
    EXPECT_NE(std::string(e.what()).find("cpu.no_such"), std::string::npos) << e.what();
  }
}

}  // namespace
}  // namespace music3::bench
