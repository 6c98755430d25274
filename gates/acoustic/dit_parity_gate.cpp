// Gate acoustic.dit_parity: the DiT's host arm against the pinned diffusers MiniMaxMusic3Transformer1DModel on
// every geometry x seed (latent lengths 17, 127, 172, 344, 516, 689; the pipeline's bf16 timesteps), both
// guidance branches (upstream's condition, and the all-zero one), judged by bf16 ULP statistics and the bit-exact
// fraction of the velocities, plus thread-count independence.
#include <gtest/gtest.h>

#include "engine/models/music3/acoustic/dit_host_arm.h"
#include "gates/acoustic/acoustic_bounds.h"
#include "gates/acoustic/acoustic_oracle.h"
#include "gates/lib/gate_env.h"
#include "gates/lib/gate_record.h"
#include "gates/lib/ulp_stats.h"

namespace music3::gates {
namespace {

void judge(const std::string& case_name, const char* metric, const std::vector<bf16>& got, const GoldenTensor& want) {
  const UlpStats s = ulp_stats(got, want.data);
  EXPECT_EQ(s.nonzero_refs + s.zero_refs, s.compared) << case_name;
  EXPECT_EQ(s.nonfinite, 0u) << case_name;
  check_ulp("acoustic.dit_parity", case_name, metric, s, acoustic_bounds::kDitVsOracle);
  const double exact = double(s.exact) / double(s.compared);
  record("acoustic.dit_parity", case_name, std::string(metric) + "_exact_fraction", exact,
         acoustic_bounds::kDitMinExactFraction, BoundKind::Lower);
  EXPECT_GE(exact, acoustic_bounds::kDitMinExactFraction) << case_name << " " << metric;
}

TEST(AcousticDitParity, HostArmMatchesOracleOnBothBranches) {
  const auto cases = acoustic_cases();
  ASSERT_EQ(cases.size(), 24u) << "4 geometries x 6 seeds, or the manifest changed under the gate";
  for (const auto& c : cases) {
    const auto w = load_dit_case(c);
    const std::string golden = acoustic_golden(c);
    const GoldenTensor x = read_golden(golden, "latents"), t = read_golden(golden, "timestep");
    const GoldenTensor cond = read_golden(golden, "condition");
    const GoldenTensor vc = read_golden(golden, "v_cond"), vu = read_golden(golden, "v_uncond");
    const int64_t L = x.shape[2];
    ASSERT_EQ(cond.shape, (std::vector<int64_t>{1, L, w.cfg.condition_dim})) << c.name();
    acoustic::DitHostArm arm(w, 0);
    const auto v = arm.velocities(x.data.data(), L, t.data[0], cond.data.data());
    ASSERT_EQ(v.conditional.size(), vc.data.size()) << c.name();
    judge(c.name(), "v_cond", v.conditional, vc);
    judge(c.name(), "v_uncond", v.unconditional, vu);
    EXPECT_EQ(arm.forwards(), 2) << c.name();
  }
}

TEST(AcousticDitParity, ThreadCountDoesNotChangeBits) {
  const auto c = acoustic_cases().front();
  const auto w = load_dit_case(c);
  const std::string golden = acoustic_golden(c);
  const GoldenTensor x = read_golden(golden, "latents"), t = read_golden(golden, "timestep");
  const GoldenTensor cond = read_golden(golden, "condition");
  acoustic::DitHostArm one(w, 1), many(w, 4);
  const auto a = one.forward(x.data.data(), x.shape[2], t.data[0], cond.data.data());
  const auto b = many.forward(x.data.data(), x.shape[2], t.data[0], cond.data.data());
  const int64_t differing = differing_bits(a, b);
  record("acoustic.dit_parity", c.name(), "threads_1_vs_4_differing", double(differing), 0);
  EXPECT_EQ(differing, 0);
}

}  // namespace
}  // namespace music3::gates

int main(int argc, char** argv) { return music3::gates::gate_main(argc, argv); }
