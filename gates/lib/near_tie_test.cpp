// Gate of the sampled-code comparison rule (gates/lib/near_tie.h): the score gap is each side's own pick's score
// (g - ln E) minus the other pick's, in bf16 ULPs of the larger finite |g| of the two picks; the rule holds when
// both sides' gaps are within the tolerance; a pick that one side's top-k masked to -inf has an infinite gap.
// The LM sampler's prefilter form: a flip of the conditional top-k's membership is a shared near-tie only at that
// top-k's threshold (within kPrefilterTieUlps) and only where both sides, the pick unmasked, would rank it first.
#include "gates/lib/near_tie.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <vector>

namespace music3::gates {
namespace {

constexpr float kUlp5 = 1.0f / 32.0f;  // bf16 spacing at 5.0: 2^(3 - 8)

TEST(NearTie, GapIsTheLargerSideInUlpsOfTheLargerPick) {
  const float a_side[] = {5.0f, 5.0f - 3 * kUlp5};  // a picked 0, ranks 1 three ULPs lower
  const float b_side[] = {5.0f - kUlp5, 5.0f};      // b picked 1, ranks 0 one ULP lower
  const float draws[] = {1.0f, 1.0f};               // ln 1 = 0: scores are the logits
  EXPECT_DOUBLE_EQ(near_tie_gap_ulps(a_side, b_side, draws, 0, 1), 3.0);
  EXPECT_FALSE(shared_near_tie(a_side, b_side, draws, 0, 1));  // 3 > kNearTieUlps
  EXPECT_TRUE(shared_near_tie(a_side, b_side, draws, 0, 1, 3.0));
}

TEST(NearTie, DrawsEnterTheScores) {
  const float g[] = {5.0f, 5.0f};
  const float draws[] = {1.0f, std::exp(4 * kUlp5)};  // column 1 scores 4 ULPs lower on both sides
  EXPECT_NEAR(near_tie_gap_ulps(g, g, draws, 0, 1), 4.0, 1e-4);
  EXPECT_NEAR(near_tie_gap_ulps(g, g, draws, 1, 0), 4.0, 1e-4);  // the larger side's: picks exchanged, same gap
  EXPECT_FALSE(shared_near_tie(g, g, draws, 0, 1));
  EXPECT_TRUE(shared_near_tie(g, g, draws, 0, 1, 4.01));
}

TEST(NearTie, APickMaskedByOneSideHasAnInfiniteGap) {
  const float inf = std::numeric_limits<float>::infinity();
  const float a_side[] = {5.0f, -inf};  // a's top-k masked column 1
  const float b_side[] = {5.0f - kUlp5, 5.0f};
  const float draws[] = {1.0f, 1.0f};
  EXPECT_TRUE(std::isinf(near_tie_gap_ulps(a_side, b_side, draws, 0, 1)));
  EXPECT_FALSE(shared_near_tie(a_side, b_side, draws, 0, 1, 1e9));
}

// Three sampled columns, a top-2 prefilter, the CFG row equal to the conditional one (so guided = c exactly) and
// draws that make column 1 lose (ln E = 2) and column 2 gain (ln E = -0.5). Upstream (side b) keeps column 2 at its
// threshold (c = T = 5.0) and picks it; the engine (side a) reads column 2 `below` ULPs under its threshold 5.0,
// masks it and picks column 0; unmasked, column 2 scores 5.5 - below/32 against column 0's 5.0.
struct PrefilterFlip {
  std::vector<bf16> a, b;
  float draws[3] = {1.0f, std::exp(2.0f), std::exp(-0.5f)};
  explicit PrefilterFlip(int below, float a_cfg_row_shift = 0.0f) {
    const float a_c[3] = {5.0f, 6.0f, 5.0f - below * kUlp5}, b_c[3] = {5.0f, 6.0f, 5.0f};
    for (int row = 0; row < 2; ++row)
      for (int i = 0; i < 3; ++i) {
        a.push_back(to_bf16(a_c[i] + (row == 1 && i == 2 ? a_cfg_row_shift : 0.0f)));
        b.push_back(to_bf16(b_c[i]));
      }
  }
  PrefilterTie judge(double tie_ulps = kPrefilterTieUlps) const {
    return prefilter_near_tie(a.data(), b.data(), 3, draws, 0, 2, 1.5f, 2, tie_ulps);
  }
};

TEST(PrefilterNearTie, AFlipAtTheThresholdThatBothSidesWouldRankFirstHolds) {
  const PrefilterTie t = PrefilterFlip(1).judge();
  EXPECT_TRUE(t.holds);
  EXPECT_EQ(t.winner, 2);
  EXPECT_DOUBLE_EQ(t.threshold_ulps, 1.0);
  EXPECT_LE(t.gap_ulps, 0.0);
}

TEST(PrefilterNearTie, AFlipFartherBelowTheThresholdThanTheTieFails) {
  const PrefilterTie t = PrefilterFlip(3).judge();
  EXPECT_FALSE(t.holds);
  EXPECT_DOUBLE_EQ(t.threshold_ulps, 3.0);
  EXPECT_TRUE(PrefilterFlip(3).judge(3.0).holds) << "the tie is the tolerance";
}

TEST(PrefilterNearTie, AFlipAtTheThresholdFailsWhenTheMaskingSideWouldNotPickIt) {
  // The engine's CFG logit of column 2 two higher: its guided 1.5 c - 0.5 u falls by 1, so unmasked it scores
  // 4.47 against column 0's 5.0 and would still pick column 0.
  const PrefilterTie t = PrefilterFlip(1, 2.0f).judge();
  EXPECT_FALSE(t.holds);
  EXPECT_GT(t.gap_ulps, kNearTieUlps);
}

TEST(PrefilterNearTie, AColumnAtTheThresholdIsKept) {
  // Column 2 at the engine's threshold exactly (a tie of the k-th value is kept, as the sampler keeps it): nothing is
  // masked on either side, and with both picks kept both sides rank column 2 first.
  const PrefilterTie t = PrefilterFlip(0).judge();
  EXPECT_TRUE(t.holds);
  EXPECT_DOUBLE_EQ(t.threshold_ulps, 0.0);
}

}  // namespace
}  // namespace music3::gates
