// exp_draws gate: the provider writes exactly sampler::exp1_draw (so the CUDA and
// CPU providers agree bit for bit), the draws look like Exp(1) (mean, variance,
// median over 1e5), every key component changes the draws, and (CPU) the bits do
// not depend on the thread count.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "engine/ops/ops.h"
#include "engine/ops/sampler_math.h"
#include "gates/ops/support/numerics.h"
#include "gates/ops/support/provider_under_test.h"
#include "engine/core/device_array.h"

namespace music3::optest {
namespace {

std::vector<float> draws(const Queue& q, int64_t n, uint64_t seed, uint64_t frame, uint32_t step) {
  DeviceArray ob(q, DType::F32, {n});
  ob.poison();
  ops::exp_draws(q, seed, frame, step, ob);
  return ob.download<float>();
}

int64_t count_equal(const std::vector<float>& a, const std::vector<float>& b) {
  int64_t same = 0;
  for (size_t i = 0; i < a.size(); ++i) same += a[i] == b[i];
  return same;
}

TEST(ExpDraws, WritesExactlyTheSharedScalarDraw) {
  const uint64_t seed = 0x0123456789ABCDEFull, frame = 0x1'0000'0007ull;
  const uint32_t step = 5;
  const auto got = draws(provider_queue(0), 4099, seed, frame, step);
  std::vector<float> want(got.size());
  for (size_t i = 0; i < want.size(); ++i) want[i] = sampler::exp1_draw(seed, frame, step, static_cast<uint32_t>(i));
  EXPECT_EQ(bits(got), bits(want)) << provider_name();
}

// Bounds: sd of the mean of 1e5 Exp(1) draws is 0.0032, of the variance 0.009, of
// the fraction above the median 0.0016; each bound is about 5 sd.
// An [S, V] call draws row s with step + s: the same bits as S calls of [V] (the depth frame's one call per frame);
// a step whose rows would pass 2^32 - 1 is refused by name.
TEST(ExpDraws, RowsTakeConsecutiveSteps) {
  const Queue q = provider_queue(0);
  const int64_t rows = 3, width = 1037;
  const uint64_t seed = 77, frame = 1'000'003;
  const uint32_t step = 5;
  DeviceArray ob(q, DType::F32, {rows, width});
  ob.poison();
  ops::exp_draws(q, seed, frame, step, ob);
  const auto got = ob.download<float>();
  for (int64_t s = 0; s < rows; ++s) {
    const auto row = draws(q, width, seed, frame, step + static_cast<uint32_t>(s));
    EXPECT_EQ(bits(std::vector<float>(got.begin() + s * width, got.begin() + (s + 1) * width)), bits(row))
        << provider_name() << " row " << s;
  }
  try {
    ops::exp_draws(q, seed, frame, UINT32_MAX - 1, ob);
    ADD_FAILURE() << "a step range past 2^32 - 1 was accepted";
  } catch (const std::exception& e) {
    EXPECT_NE(std::string(e.what()).find("step"), std::string::npos) << e.what();
  }
}

TEST(ExpDraws, LookLikeExponentialOne) {
  const int64_t n = 100000;
  const auto e = draws(provider_queue(0), n, 42, 7, 3);
  double sum = 0, sumsq = 0, min = INFINITY;
  int64_t above_median = 0;
  for (const float v : e) {
    ASSERT_TRUE(std::isfinite(v));
    sum += v;
    sumsq += static_cast<double>(v) * v;
    min = std::min(min, static_cast<double>(v));
    above_median += v > std::log(2.0);
  }
  const double mean = sum / n, var = sumsq / n - mean * mean;
  EXPECT_NEAR(mean, 1.0, 0.016);
  EXPECT_NEAR(var, 1.0, 0.045);
  EXPECT_NEAR(static_cast<double>(above_median) / n, 0.5, 0.008);
  EXPECT_GT(min, 0.0);
}

TEST(ExpDraws, EveryKeyComponentChangesTheDraws) {
  const int64_t n = 4096;
  const Queue q = provider_queue(0);
  const auto base = draws(q, n, 1000, 2000, 3);
  const std::vector<std::pair<const char*, std::vector<float>>> variants = {
      {"seed low bit", draws(q, n, 1001, 2000, 3)},
      {"seed high word", draws(q, n, 1000 | (1ull << 40), 2000, 3)},
      {"frame low bit", draws(q, n, 1000, 2001, 3)},
      {"frame high word", draws(q, n, 1000, 2000 | (1ull << 33), 3)},
      {"step", draws(q, n, 1000, 2000, 4)}};
  for (const auto& [what, v] : variants) EXPECT_LE(count_equal(base, v), n / 100) << what;
  // Draws i and i + 4 come from different counters; the 4 lanes of one counter differ.
  int64_t repeats = 0;
  for (int64_t i = 0; i + 4 < n; ++i) repeats += base[i] == base[i + 4] || base[i] == base[i + 1];
  EXPECT_LE(repeats, 2);
}

TEST(ExpDraws, BitsDoNotDependOnThreads) {
  if (provider_is_cuda()) GTEST_SKIP() << "CPU thread invariance (CUDA is held to the scalar draw above)";
  const auto one = draws(cpu_queue(1), 10000, 9, 9, 9);
  EXPECT_EQ(bits(draws(cpu_queue(2), 10000, 9, 9, 9)), bits(one));
}

}  // namespace
}  // namespace music3::optest
