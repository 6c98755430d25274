// Gate acoustic.encoder_parity: the condition encoder's host arm against the pinned diffusers
// MiniMaxMusic3ConditionEncoder on every geometry x seed (window lengths 5, 37, 50, 100, 150, 200 frames), judged
// by bf16 ULP statistics and the bit-exact fraction of the condition, plus upstream's latent length per window
// and thread-count independence.
#include <gtest/gtest.h>

#include "engine/models/music3/acoustic/condition_encoder_host_arm.h"
#include "gates/acoustic/acoustic_bounds.h"
#include "gates/acoustic/acoustic_oracle.h"
#include "gates/lib/gate_env.h"
#include "gates/lib/gate_record.h"
#include "gates/lib/ulp_stats.h"

namespace music3::gates {
namespace {

TEST(AcousticEncoderParity, HostArmMatchesOracle) {
  const auto cases = acoustic_cases();
  ASSERT_EQ(cases.size(), 24u) << "4 geometries x 6 seeds, or the manifest changed under the gate";
  for (const auto& c : cases) {
    const auto w = load_encoder_case(c);
    const std::string golden = acoustic_golden(c);
    const GoldenTensor frames = read_golden(golden, "frames"), expected = read_golden(golden, "condition");
    ASSERT_EQ(frames.shape.size(), 3u);
    const int64_t n = frames.shape[1], L = w.cfg.latent_length(n);
    ASSERT_EQ(expected.shape, (std::vector<int64_t>{1, L, w.cfg.out_dim})) << c.name() << ": latent length";
    acoustic::ConditionEncoderHostArm arm(w, 1);
    const auto got = arm.encode(frames.data.data(), n, L);
    const UlpStats s = ulp_stats(got, expected.data);
    EXPECT_EQ(s.nonzero_refs + s.zero_refs, s.compared) << c.name();
    EXPECT_EQ(s.nonfinite, 0u) << c.name();
    check_ulp("acoustic.encoder_parity", c.name(), "condition", s, acoustic_bounds::kEncoderVsOracle);
    const double exact = double(s.exact) / double(s.compared);
    record("acoustic.encoder_parity", c.name(), "exact_fraction", exact, acoustic_bounds::kEncoderMinExactFraction,
           BoundKind::Lower);
    EXPECT_GE(exact, acoustic_bounds::kEncoderMinExactFraction) << c.name();
  }
}

TEST(AcousticEncoderParity, ThreadCountDoesNotChangeBits) {
  const auto c = acoustic_cases().front();
  const auto w = load_encoder_case(c);
  const GoldenTensor frames = read_golden(acoustic_golden(c), "frames");
  const int64_t n = frames.shape[1], L = w.cfg.latent_length(n);
  acoustic::ConditionEncoderHostArm one(w, 1), many(w, 4);
  const auto a = one.encode(frames.data.data(), n, L), b = many.encode(frames.data.data(), n, L);
  const int64_t differing = differing_bits(a, b);
  record("acoustic.encoder_parity", c.name(), "threads_1_vs_4_differing", double(differing), 0);
  EXPECT_EQ(differing, 0);
  EXPECT_EQ(one.forwards(), 1);
}

}  // namespace
}  // namespace music3::gates

int main(int argc, char** argv) { return music3::gates::gate_main(argc, argv); }
