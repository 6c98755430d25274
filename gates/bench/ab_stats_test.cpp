// The A/B statistics against values computed independently: order statistics by hand,
// the bootstrap by a separate Python implementation of the same splitmix64 stream and
// percentile rule (numbers below), Mann-Whitney U and its p by hand (exact null
// distribution counts; the tie-corrected normal approximation with math.erfc), and the
// verdict rule case by case.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

#include "bench/stats/ab_stats.h"

namespace music3::bench {
namespace {

TEST(AbStats, MedianAndQuantileInterpolate) {
  EXPECT_DOUBLE_EQ(median({3, 1, 2}), 2);
  EXPECT_DOUBLE_EQ(median({4, 1, 3, 2}), 2.5);
  EXPECT_DOUBLE_EQ(quantile({10, 20, 30, 40, 50}, 0.1), 14);  // position 0.4 between 10 and 20
  EXPECT_DOUBLE_EQ(quantile({10, 20, 30, 40, 50}, 1.0), 50);
  EXPECT_THROW(median({}), std::invalid_argument);
  EXPECT_THROW(median({1, NAN}), std::invalid_argument);
  EXPECT_THROW(quantile({1, 2}, 1.5), std::invalid_argument);
}

TEST(AbStats, SplitMixMatchesTheReferenceStream) {
  SplitMix64 rng(0);  // splitmix64's published first outputs for seed 0
  EXPECT_EQ(rng.next(), 16294208416658607535ull);
  EXPECT_EQ(rng.next(), 7960286522194355700ull);
  EXPECT_EQ(rng.next(), 487617019471545679ull);
}

TEST(AbStats, BootstrapCiMatchesAnIndependentImplementation) {
  // Python: the same stream, index (draw * n) >> 64, medians sorted, numpy-style quantiles.
  const Interval a = bootstrap_median_ci({1.00, 1.02, 0.98, 1.05, 0.97, 1.01, 0.99});
  EXPECT_DOUBLE_EQ(a.lo, 0.98);
  EXPECT_DOUBLE_EQ(a.hi, 1.02);
  const Interval b = bootstrap_median_ci({3, 1, 4, 1, 5, 9, 2, 6}, {7, 2000, 0.9});
  EXPECT_DOUBLE_EQ(b.lo, 1.5);
  EXPECT_DOUBLE_EQ(b.hi, 5.5);
}

TEST(AbStats, BootstrapOfConstantDataIsAPoint) {
  const Interval c = bootstrap_median_ci({2.5, 2.5, 2.5, 2.5});
  EXPECT_EQ(c.lo, 2.5);
  EXPECT_EQ(c.hi, 2.5);
  EXPECT_THROW(bootstrap_median_ci({1, 2}, {1, 1, 0.95}), std::invalid_argument);
}

TEST(AbStats, PairedRatiosAreBOverA) {
  EXPECT_EQ(paired_ratios({2, 4}, {1, 8}), (std::vector<double>{0.5, 2}));
  EXPECT_THROW(paired_ratios({1, 2}, {1}), std::invalid_argument);
  EXPECT_THROW(paired_ratios({0}, {1}), std::invalid_argument);
}

TEST(AbStats, MannWhitneyExactSmallSamples) {
  // a all below b: U_a = 0; P(U <= 0) = 1 / C(6,3) = 1/20; p = 2/20.
  MannWhitney m = mann_whitney_u({1, 2, 3}, {4, 5, 6});
  EXPECT_EQ(m.u_a, 0);
  EXPECT_EQ(m.u_b, 9);
  EXPECT_TRUE(m.exact);
  EXPECT_DOUBLE_EQ(m.p_two_sided, 0.1);
  // a = {1, 2, 4}, b = {3, 5, 6}: only 4 > 3, so U_a = 1; arrangements with U <= 1: 2 of 20.
  m = mann_whitney_u({1, 2, 4}, {3, 5, 6});
  EXPECT_EQ(m.u_a, 1);
  EXPECT_DOUBLE_EQ(m.p_two_sided, 0.2);
  // Symmetric in direction.
  EXPECT_DOUBLE_EQ(mann_whitney_u({4, 5, 6}, {1, 2, 3}).p_two_sided, 0.1);
  // 15 vs 15, fully separated: p = 2 / C(30, 15).
  std::vector<double> lo, hi;
  for (int i = 0; i < 15; ++i) lo.push_back(1 + i * 0.01), hi.push_back(2 + i * 0.01);
  EXPECT_NEAR(mann_whitney_u(lo, hi).p_two_sided, 2.0 / 155117520.0, 1e-20);
}

TEST(AbStats, MannWhitneyWithTiesUsesTheCorrectedNormalApproximation) {
  // a = {1,2,2,3}, b = {2,3,4,5}: U_a = 2.5; tie term sum(t^3 - t) = 24 (three 2s) + 6 (two 3s);
  // sigma = sqrt(16/12 * (9 - 30/56)); z = (13.5 - 8 - 0.5) / sigma; p = erfc(z / sqrt 2).
  const MannWhitney m = mann_whitney_u({1, 2, 2, 3}, {2, 3, 4, 5});
  EXPECT_DOUBLE_EQ(m.u_a, 2.5);
  EXPECT_FALSE(m.exact);
  EXPECT_NEAR(m.p_two_sided, 0.13665824773814753, 1e-12);
  EXPECT_DOUBLE_EQ(mann_whitney_u({1, 1}, {1, 1}).p_two_sided, 1.0);
}

TEST(AbStats, SplitNoisePairsNeighbouringRepetitions) {
  const SplitNoise flat = split_noise({2, 2, 2, 2, 2, 2});
  EXPECT_EQ(flat.band, 0);
  // Every odd repetition 10% above its even neighbour: ratios all 1.1.
  const SplitNoise tilted = split_noise({1, 1.1, 2, 2.2, 3, 3.3, 4, 4.4, 5});
  EXPECT_NEAR(tilted.median_ratio, 1.1, 1e-12);
  EXPECT_NEAR(tilted.band, 0.1, 1e-12);
  EXPECT_THROW(split_noise({1, 2, 3}), std::invalid_argument);
}

TEST(AbStats, VerdictRule) {
  VerdictInputs in{0.5, {0.45, 0.55}, 0.02, 1e-5, true, 0.05};
  EXPECT_EQ(decide(in).verdict, Verdict::Faster);
  in.ratio = 2.0, in.ci = {1.9, 2.1};
  EXPECT_EQ(decide(in).verdict, Verdict::Slower);
  in.ci = {0.95, 2.1};  // CI holds 1
  EXPECT_EQ(decide(in).verdict, Verdict::Same);
  in = {1.03, {1.01, 1.05}, 0.04, 1e-5, true, 0.05};  // within the noise band
  EXPECT_EQ(decide(in).verdict, Verdict::Same);
  in.noise_band = 0.02;
  EXPECT_EQ(decide(in).verdict, Verdict::Slower);
  in.p_value = 0.2;  // the U test does not reject
  EXPECT_EQ(decide(in).verdict, Verdict::Same);
  in = {0.5, {0.45, 0.55}, 0.02, 1e-5, false, 0.05};  // gates failed or absent
  const VerdictResult refused = decide(in);
  EXPECT_EQ(refused.verdict, Verdict::Refused);
  EXPECT_EQ(verdict_name(refused.verdict), "REFUSED: gates failed");
}

}  // namespace
}  // namespace music3::bench
