// Gates depth.{host,device}_vs_oracle and depth.device_vs_host: multi-seed ULP
// parity of both arms against the upstream oracle, and the device-vs-host band,
// over every geometry and seed of the manifest: each CFG row of the bf16 traces
// on its own, the f32 guided logits in f32 ULPs, and those whose head logits
// equal the golden's exactly (the guidance arithmetic alone) bit-exact
// (depth_bounds.h). Teacher-forced with the oracle's codes and its recorded
// draws, so every call of every frame is compared (per-call goldens travel
// across hardware).
#include <gtest/gtest.h>

#include "gates/depth/depth_bounds.h"
#include "gates/depth/depth_runs.h"
#include "gates/lib/gate_env.h"

namespace music3::gates {
namespace {

struct ArmRun {
  OracleCase c;
  depth::DepthConfig cfg;
  OracleGolden golden;
  CaseRun host, device;
};

const std::vector<ArmRun>& runs() {
  static const std::vector<ArmRun> all = [] {
    std::vector<ArmRun> out;
    for (const auto& c : oracle_cases()) {
      ArmRun r;
      r.c = c;
      r.cfg = load_case_weights(c).cfg;
      r.golden = read_golden(c, r.cfg);
      r.host = run_case(c, r.golden, cpu_queue(), {depth::ArmRequest::Host});
      r.device = run_case(c, r.golden, gate_queue(), {depth::ArmRequest::Device});
      out.push_back(std::move(r));
    }
    return out;
  }();
  return all;
}

// The guided logits where both of the candidate's head-logit rows equal the
// golden's bit for bit: there the guidance arithmetic alone separates them, so
// it is judged in f32 ULPs undiluted by the head's own spread.
UlpStats guided_on_equal_inputs(const CaseRun& cand, const OracleGolden& g, size_t V) {
  std::vector<float> got, want;
  for (size_t i = 0; i < g.guided.size(); ++i) {
    const size_t row0 = (i / V * 2) * V + i % V, row1 = row0 + V;
    if (cand.head_logits[row0].bits != g.head_logits[row0].bits ||
        cand.head_logits[row1].bits != g.head_logits[row1].bits)
      continue;
    got.push_back(cand.guided[i]);
    want.push_back(g.guided[i]);
  }
  return ulp_stats(got.data(), want.data(), want.size(), UlpScale::F32);
}

// One set of bounds for every arm and queue (CPU and the H200: depth_bounds.h has both worsts), except where a run
// disables a provider (gate_variant(), e.g. the cuBLAS-only CUDA run): its gate ids carry the variant, so its
// records stay apart, and the hidden's zero bucket and the guided logits take depth_bounds::kCublasPath*.
struct VsOracleBounds {
  UlpBounds hidden, guided;
};
VsOracleBounds vs_oracle_bounds() {
  using namespace depth_bounds;
  if (gate_variant().empty()) return {kHiddenVsOracle, kGuidedVsOracle};
  return {kCublasPathHiddenVsOracle, kCublasPathGuided};
}

void check_against(const std::string& gate, const ArmRun& r, const CaseRun& cand) {
  using namespace depth_bounds;
  const auto& g = r.golden;
  const VsOracleBounds b = vs_oracle_bounds();
  check_ulp_cfg(gate, r.c.name(), "final_hidden", cand.final_hidden, g.final_hidden, size_t(r.cfg.hidden), b.hidden);
  check_ulp_cfg(gate, r.c.name(), "head_logits", cand.head_logits, g.head_logits, size_t(r.cfg.vocab),
                kLogitsVsOracle);
  ASSERT_EQ(cand.guided.size(), g.guided.size()) << gate << " " << r.c.name();
  check_ulp(gate, r.c.name(), "guided", ulp_stats(cand.guided.data(), g.guided.data(), g.guided.size(), UlpScale::F32),
            b.guided);
  const UlpStats same = guided_on_equal_inputs(cand, g, size_t(r.cfg.vocab));
  check_ulp(gate, r.c.name(), "guided.equal_inputs", same, kGuidedOnEqualInputs);
  const double share = double(same.compared) / double(g.guided.size());
  EXPECT_GE(share, kMinEqualInputShare) << gate << " " << r.c.name();
  record(gate, r.c.name(), "guided.equal_input_share", share, kMinEqualInputShare, BoundKind::Lower);
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
    check_against("depth.host_vs_oracle" + gate_variant(), r, r.host);
  }
}

TEST(DepthParity, DeviceArmMatchesOracle) {
  for (const auto& r : runs()) {
    ASSERT_EQ(r.device.final_hidden.size(), r.golden.final_hidden.size());
    check_against("depth.device_vs_oracle" + gate_variant(), r, r.device);
  }
}

TEST(DepthBand, DeviceWithinBandOfHost) {
  const std::string gate = "depth.device_vs_host" + gate_variant();
  for (const auto& r : runs()) {
    check_ulp_cfg(gate, r.c.name(), "final_hidden", r.device.final_hidden, r.host.final_hidden, size_t(r.cfg.hidden),
                  depth_bounds::kHiddenBand);
    check_ulp_cfg(gate, r.c.name(), "head_logits", r.device.head_logits, r.host.head_logits, size_t(r.cfg.vocab),
                  depth_bounds::kLogitsBand);
  }
}

}  // namespace
}  // namespace music3::gates

int main(int argc, char** argv) { return music3::gates::gate_main(argc, argv); }
