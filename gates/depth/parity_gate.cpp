// Gates depth.{host,device}_vs_oracle and depth.device_vs_host: multi-seed bf16 ULP parity of both arms against the upstream
// oracle, and the device-vs-host band, over every geometry and seed of the
// manifest. Teacher-forced with the oracle's codes and its recorded draws, so
// every call of every frame is compared (per-call goldens travel across hardware).
#include <gtest/gtest.h>

#include "gates/depth/depth_bounds.h"
#include "gates/depth/depth_runs.h"
#include "gates/lib/gate_env.h"

namespace music3::gates {
namespace {

struct ArmRun {
  OracleCase c;
  OracleGolden golden;
  CaseRun host, device;
};

const std::vector<ArmRun>& runs() {
  static const std::vector<ArmRun> all = [] {
    std::vector<ArmRun> out;
    for (const auto& c : oracle_cases()) {
      ArmRun r;
      r.c = c;
      const auto cfg = load_case_weights(c).cfg;
      r.golden = read_golden(c, cfg);
      r.host = run_case(c, r.golden, cpu_queue(), {depth::ArmRequest::Host});
      r.device = run_case(c, r.golden, gate_queue(), {depth::ArmRequest::Device});
      out.push_back(std::move(r));
    }
    return out;
  }();
  return all;
}

void check_against(const std::string& gate, const ArmRun& r, const CaseRun& cand, const UlpBounds& b) {
  const auto& g = r.golden;
  check_ulp(gate, r.c.name(), "final_hidden", ulp_stats(cand.final_hidden.data(), g.final_hidden.data(), g.final_hidden.size()), b);
  check_ulp(gate, r.c.name(), "head_logits", ulp_stats(cand.head_logits.data(), g.head_logits.data(), g.head_logits.size()), b);
  check_ulp(gate, r.c.name(), "guided", ulp_stats(cand.guided.data(), g.guided.data(), g.guided.size()), b);
}

TEST(DepthParity, EveryCaseWasRun) {
  // Three geometries x six seeds, or the manifest changed under the gate.
  EXPECT_EQ(runs().size(), 18u);
  for (const auto& r : runs()) {
    EXPECT_EQ(r.host.arm, depth::ArmKind::Host) << r.c.name();
    EXPECT_EQ(r.device.arm, depth::ArmKind::Device) << r.c.name();
    EXPECT_EQ(r.host.final_hidden.size(), r.golden.final_hidden.size()) << r.c.name();
    EXPECT_EQ(r.device.final_hidden.size(), r.golden.final_hidden.size()) << r.c.name();
  }
}

TEST(DepthParity, HostArmMatchesOracle) {
  for (const auto& r : runs()) {
    ASSERT_EQ(r.host.final_hidden.size(), r.golden.final_hidden.size());
    check_against("depth.host_vs_oracle", r, r.host, depth_bounds::kVsOracle);
  }
}

TEST(DepthParity, DeviceArmMatchesOracle) {
  for (const auto& r : runs()) {
    ASSERT_EQ(r.device.final_hidden.size(), r.golden.final_hidden.size());
    check_against("depth.device_vs_oracle", r, r.device, depth_bounds::kVsOracle);
  }
}

TEST(DepthBand, DeviceWithinBandOfHost) {
  for (const auto& r : runs()) {
    const auto& h = r.host;
    const auto& d = r.device;
    ASSERT_EQ(h.final_hidden.size(), d.final_hidden.size());
    check_ulp("depth.device_vs_host", r.c.name(), "final_hidden",
              ulp_stats(d.final_hidden.data(), h.final_hidden.data(), h.final_hidden.size()), depth_bounds::kBand);
    check_ulp("depth.device_vs_host", r.c.name(), "head_logits",
              ulp_stats(d.head_logits.data(), h.head_logits.data(), h.head_logits.size()), depth_bounds::kBand);
  }
}

}  // namespace
}  // namespace music3::gates

int main(int argc, char** argv) { return music3::gates::gate_main(argc, argv); }
