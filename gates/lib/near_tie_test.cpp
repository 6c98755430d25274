// Gate of the sampled-code comparison rule (gates/lib/near_tie.h): the score gap is each side's own pick's score
// (g - ln E) minus the other pick's, in bf16 ULPs of the larger finite |g| of the two picks; the rule holds when
// both sides' gaps are within the tolerance; a pick that one side's top-k masked to -inf has an infinite gap.
#include "gates/lib/near_tie.h"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

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

}  // namespace
}  // namespace music3::gates
