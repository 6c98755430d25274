// rms_norm gate: the provider under test against an independent f64 reference
// rounded at the contract's two bf16 rounding points, in place vs out of place,
// thread-count invariance (CPU) and agreement with the CPU provider (CUDA).
#include <gtest/gtest.h>

#include <cmath>

#include "engine/ops/ops.h"
#include "gates/lib/ulp_stats.h"
#include "gates/ops/support/numerics.h"
#include "gates/ops/support/provider_under_test.h"
#include "engine/core/device_array.h"

namespace music3::optest {
namespace {

// out = bf16( bf16(x * r) * w ), r = 1 / sqrt(mean(x^2) + eps), all in f64 before each rounding.
std::vector<bf16> reference(const std::vector<bf16>& x, const std::vector<bf16>& w, int64_t rows, int64_t n,
                            float eps) {
  std::vector<bf16> out(x.size());
  for (int64_t r = 0; r < rows; ++r) {
    double ss = 0;
    for (int64_t i = 0; i < n; ++i) ss += static_cast<double>(to_f32(x[r * n + i])) * to_f32(x[r * n + i]);
    const double inv_rms = 1.0 / std::sqrt(ss / static_cast<double>(n) + static_cast<double>(eps));
    for (int64_t i = 0; i < n; ++i) {
      const double y = to_f32(bf16_from_f64(to_f32(x[r * n + i]) * inv_rms));
      out[r * n + i] = bf16_from_f64(y * to_f32(w[i]));
    }
  }
  return out;
}

std::vector<bf16> weights(int64_t n, uint64_t seed) {
  std::vector<bf16> w = normal_bf16(static_cast<size_t>(n), seed, 0.3);
  for (auto& v : w) v = to_bf16(to_f32(v) + 1.0f);
  return w;
}

std::vector<bf16> run(const Queue& q, const std::vector<bf16>& x, const std::vector<bf16>& w, int64_t rows,
                      int64_t n, float eps) {
  DeviceArray xb(q, DType::BF16, {rows, n}), wb(q, DType::BF16, {n}), ob(q, DType::BF16, {rows, n});
  xb.upload(x);
  wb.upload(w);
  ob.poison();
  ops::rms_norm(q, xb, wb, eps, ob);
  return ob.download<bf16>();
}

// Bounds measured on the CPU provider over the seeds below: every element within
// 1 ulp and >= 99.9 % exact (ss accumulated in f32 vs f64 is the only difference).
void expect_close(const std::vector<bf16>& got, const std::vector<bf16>& ref, const std::string& what) {
  const gates::UlpStats s = gates::ulp_stats(got, ref);
  report(provider_name() + " " + what, s);
  SCOPED_TRACE(provider_name() + " " + what + ": " + s.summary());
  EXPECT_EQ(s.nonfinite, 0u);
  EXPECT_EQ(s.nonzero_refs + s.zero_refs + s.nonfinite, s.compared);
  EXPECT_EQ(s.within_one, s.nonzero_refs);
  EXPECT_GE(static_cast<double>(s.exact), 0.999 * static_cast<double>(s.nonzero_refs));
}

TEST(RmsNorm, MatchesF64ReferenceAtModelShape) {
  const int64_t rows = 2, n = 4096;
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    const auto x = normal_bf16(rows * n, seed, 2.0);
    const auto w = weights(n, 100 + seed);
    expect_close(run(provider_queue(0), x, w, rows, n, 1e-6f), reference(x, w, rows, n, 1e-6f),
                 "seed " + std::to_string(seed));
  }
}

TEST(RmsNorm, OddWidthAndManyRows) {
  const int64_t rows = 37, n = 4099;  // not a multiple of 16 (dot tail) nor of the CUDA block
  const auto x = normal_bf16(rows * n, 7, 0.05);
  const auto w = weights(n, 8);
  expect_close(run(provider_queue(0), x, w, rows, n, 1e-5f), reference(x, w, rows, n, 1e-5f), "37 x 4099");
}

// Rows whose mean square is comparable to eps (|x| ~ 1e-3, so mean(x^2) ~ 1e-6): here
// eps moves every output by far more than an ulp, so a dropped or wrong eps shows.
TEST(RmsNorm, EpsMattersOnSmallRows) {
  const int64_t rows = 4, n = 512;
  const auto x = normal_bf16(rows * n, 13, 1e-3);
  const auto w = weights(n, 14);
  expect_close(run(provider_queue(0), x, w, rows, n, 1e-6f), reference(x, w, rows, n, 1e-6f), "small rows, eps 1e-6");
  const auto without_eps = reference(x, w, rows, n, 0.0f);
  EXPECT_NE(bits(without_eps), bits(reference(x, w, rows, n, 1e-6f))) << "the case does not depend on eps";
}

TEST(RmsNorm, InPlaceEqualsOutOfPlace) {
  const Queue q = provider_queue(0);
  const int64_t rows = 3, n = 1000;
  const auto x = normal_bf16(rows * n, 9, 1.0);
  const auto w = weights(n, 10);
  DeviceArray xb(q, DType::BF16, {rows, n}), wb(q, DType::BF16, {n});
  xb.upload(x);
  wb.upload(w);
  ops::rms_norm(q, xb, wb, 1e-6f, xb);
  EXPECT_EQ(bits(xb.download<bf16>()), bits(run(q, x, w, rows, n, 1e-6f)));
}

TEST(RmsNorm, BitsDoNotDependOnThreadsOrMatchTheCpuProvider) {
  const int64_t rows = 16, n = 2048;
  const auto x = normal_bf16(rows * n, 11, 1.5);
  const auto w = weights(n, 12);
  const auto one_thread = run(cpu_queue(1), x, w, rows, n, 1e-6f);
  if (!provider_is_cuda()) {
    EXPECT_EQ(bits(run(cpu_queue(2), x, w, rows, n, 1e-6f)), bits(one_thread));
    EXPECT_EQ(bits(run(cpu_queue(0), x, w, rows, n, 1e-6f)), bits(one_thread));
    return;
  }
  // CUDA sums ss in another order: held to the same bounds against the CPU provider.
  expect_close(run(provider_queue(0), x, w, rows, n, 1e-6f), one_thread, "vs CPU provider");
}

}  // namespace
}  // namespace music3::optest
