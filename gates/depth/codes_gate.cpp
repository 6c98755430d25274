// Gates depth.codes_vs_oracle_<arm> and depth.codes_generator: sampled codes.
//  1. With the oracle's recorded Exp(1) draws injected (no teacher forcing), each arm
//     draws the oracle's codes; a difference is allowed only at a shared near-tie
//     (gates/lib/near_tie.h), and the frame's comparison stops at that draw.
//  2. With the engine's own generator, codes are identical across arms, thread
//     counts and repeated runs (on a CUDA queue, across arms up to a shared near-tie:
//     the two arms' logits differ in the last place there).
#include <gtest/gtest.h>

#include "gates/depth/depth_runs.h"
#include "gates/lib/gate_env.h"
#include "gates/lib/gate_record.h"
#include "gates/lib/code_agreement.h"
#include "engine/ops/sampler_math.h"

namespace music3::gates {
namespace {

// Run `a` against reference codes `ref` under the same draws; a defect is reported as a failure.
CodeAgreement judge_codes(const CaseRun& a, const std::vector<int32_t>& ref, const std::vector<float>& ref_guided,
                            const std::vector<float>& draws, int64_t frames, int S, int V, const std::string& what) {
  CodeAgreement t =
      compare_codes(a.codes.data(), a.guided.data(), ref.data(), ref_guided.data(), draws.data(), frames, S, V);
  for (const auto& defect : t.defects_found) ADD_FAILURE() << what << " " << defect;
  return t;
}

TEST(DepthCodes, InjectedOracleDrawsGiveTheOracleCodes) {
  for (const auto& c : oracle_cases()) {
    const auto cfg = load_case_weights(c).cfg;
    const auto g = read_golden(c, cfg);
    for (auto [req, q] : {std::pair{depth::ArmRequest::Host, cpu_queue()}, std::pair{depth::ArmRequest::Device, gate_queue()}}) {
      const CaseRun run = run_case(c, g, q, {req, /*replay*/ true, /*forced*/ false});
      const std::string arm = depth::arm_name(run.arm);
      const CodeAgreement t = judge_codes(run, g.codes, g.guided, g.exp_draws, g.frames, cfg.steps(), cfg.vocab,
                                        c.name() + " " + arm + " vs oracle");
      EXPECT_EQ(t.defects, 0) << c.name() << " " << arm;
      EXPECT_GT(t.equal, 0) << c.name() << " " << arm;
      record("depth.codes_vs_oracle_" + arm, c.name(), "defects", t.defects, 0);
      record("depth.codes_vs_oracle_" + arm, c.name(), "near_ties", t.near_ties, 0, BoundKind::ReportOnly);
      record("depth.codes_vs_oracle_" + arm, c.name(), "equal_of_compared", double(t.equal) / t.compared, 0,
             BoundKind::ReportOnly);
    }
  }
}

TEST(DepthCodes, OwnGeneratorIsArmThreadAndRunIndependent) {
  for (const auto& c : oracle_cases()) {
    if (c.seed > 1) continue;  // two seeds per geometry: the property is structural
    const auto cfg = load_case_weights(c).cfg;
    const auto g = read_golden(c, cfg);
    const uint64_t seed = 0xC0DE5EEDull + uint64_t(c.seed);
    const RunOptions host_opts{depth::ArmRequest::Host, false, false, seed};
    const RunOptions dev_opts{depth::ArmRequest::Device, false, false, seed};
    const CaseRun h1 = run_case(c, g, cpu_queue(1), host_opts);
    const CaseRun h2 = run_case(c, g, cpu_queue(2), host_opts);
    const CaseRun h2b = run_case(c, g, cpu_queue(2), host_opts);
    EXPECT_EQ(h1.codes, h2.codes) << c.name() << ": host arm codes depend on the thread count";
    EXPECT_EQ(h2.codes, h2b.codes) << c.name() << ": host arm codes differ between repeated runs";
    const CaseRun d = run_case(c, g, gate_queue(), dev_opts);
    const CaseRun d2 = run_case(c, g, gate_queue(), dev_opts);
    EXPECT_EQ(d.codes, d2.codes) << c.name() << ": device arm codes differ between repeated runs";
    if (gate_device() == DeviceType::CPU) {
      EXPECT_EQ(d.codes, h1.codes) << c.name() << ": arms draw different codes from the same generator";
      record("depth.codes_generator", c.name(), "arms_identical", d.codes == h1.codes, 1, BoundKind::Lower);
    } else {
      // Same generator, same draws: recompute them for the near-tie judgement.
      std::vector<float> draws(d.guided.size());
      const size_t V = size_t(cfg.vocab), S = size_t(cfg.steps());
      for (size_t i = 0; i < draws.size(); ++i)
        draws[i] = sampler::exp1_draw(seed, (i / V) / S, uint32_t((i / V) % S), uint32_t(i % V));
      const CodeAgreement t = judge_codes(d, h1.codes, h1.guided, draws, g.frames, cfg.steps(), cfg.vocab,
                                        c.name() + " device vs host (generator)");
      EXPECT_EQ(t.defects, 0);
      record("depth.codes_generator", c.name(), "defects", t.defects, 0);
    }
    record("depth.codes_generator", c.name(), "threads_and_runs_identical", h1.codes == h2.codes && h2.codes == h2b.codes && d.codes == d2.codes,
           1, BoundKind::Lower);
  }
}

}  // namespace
}  // namespace music3::gates

int main(int argc, char** argv) { return music3::gates::gate_main(argc, argv); }
