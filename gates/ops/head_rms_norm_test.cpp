// head_rms_norm gate: the provider under test against an independent f64 reference per
// head (rms_norm's two bf16 rounding points), only the named heads touched, the head's
// own weight applied; thread-count invariance (CPU) and agreement with the CPU provider (CUDA).
#include <gtest/gtest.h>

#include <cmath>

#include "engine/core/device_array.h"
#include "engine/ops/lm_ops.h"
#include "gates/lib/ulp_stats.h"
#include "gates/ops/support/numerics.h"
#include "gates/ops/support/provider_under_test.h"

namespace music3::optest {
namespace {

struct Case {
  int64_t rows, heads, dim;
  int first, count;
};

std::vector<bf16> reference(std::vector<bf16> x, const std::vector<bf16>& w, const Case& c, float eps) {
  const int64_t width = c.heads * c.dim;
  for (int64_t r = 0; r < c.rows; ++r)
    for (int h = c.first; h < c.first + c.count; ++h) {
      bf16* head = x.data() + r * width + h * c.dim;
      double ss = 0;
      for (int64_t d = 0; d < c.dim; ++d) ss += double(to_f32(head[d])) * to_f32(head[d]);
      const double inv = 1.0 / std::sqrt(ss / double(c.dim) + double(eps));
      for (int64_t d = 0; d < c.dim; ++d)
        head[d] = bf16_from_f64(double(to_f32(bf16_from_f64(to_f32(head[d]) * inv))) * to_f32(w[size_t(d)]));
    }
  return x;
}

std::vector<bf16> run(const Queue& q, const std::vector<bf16>& x, const std::vector<bf16>& w, const Case& c,
                      float eps) {
  DeviceArray xb(q, DType::BF16, {c.rows, c.heads * c.dim}), wb(q, DType::BF16, {c.dim});
  xb.upload(x);
  wb.upload(w);
  ops::head_rms_norm(q, xb, wb, c.first, c.count, eps);
  return xb.download<bf16>();
}

std::vector<bf16> weights(int64_t n, uint64_t seed) {
  std::vector<bf16> w = normal_bf16(size_t(n), seed, 0.3);
  for (auto& v : w) v = to_bf16(to_f32(v) + 1.0f);
  return w;
}

// Bounds measured on the CPU provider over these cases: every element within 1 ulp and
// >= 99.5 % exact (ss in f32 vs f64 is the only difference); the heads outside
// [first, first + count) are bit-identical to the input.
void expect_close(const std::vector<bf16>& got, const std::vector<bf16>& ref, const std::string& what) {
  const gates::UlpStats s = gates::ulp_stats(got, ref);
  report(provider_name() + " " + what, s);
  SCOPED_TRACE(provider_name() + " " + what + ": " + s.summary());
  EXPECT_EQ(s.nonfinite, 0u);
  EXPECT_EQ(s.within_one, s.nonzero_refs);
  EXPECT_GE(double(s.exact), 0.995 * double(s.nonzero_refs));
}

TEST(HeadRmsNorm, QAndKHeadsOfAFusedRow) {
  // Qwen3 at full geometry: 32 q heads, then 8 k heads, then 8 v heads of 128.
  const Case qc{2, 48, 128, 0, 32}, kc{2, 48, 128, 32, 8};
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    const auto x = normal_bf16(size_t(qc.rows * qc.heads * qc.dim), seed, 2.0);
    const auto w = weights(qc.dim, 100 + seed);
    for (const Case& c : {qc, kc}) {
      const auto got = run(provider_queue(0), x, w, c, 1e-6f), ref = reference(x, w, c, 1e-6f);
      expect_close(got, ref, "seed " + std::to_string(seed) + " first " + std::to_string(c.first));
      const int64_t width = c.heads * c.dim;
      for (int64_t r = 0; r < c.rows; ++r)
        for (int64_t i = 0; i < width; ++i) {
          const int64_t h = i / c.dim;
          if (h >= c.first && h < c.first + c.count) continue;
          ASSERT_EQ(got[size_t(r * width + i)].bits, x[size_t(r * width + i)].bits) << "head " << h << " touched";
        }
    }
  }
}

TEST(HeadRmsNorm, OddHeadWidthAndManyRows) {
  const Case c{37, 7, 40, 2, 5};
  const auto x = normal_bf16(size_t(c.rows * c.heads * c.dim), 7, 0.05);
  const auto w = weights(c.dim, 8);
  expect_close(run(provider_queue(0), x, w, c, 1e-5f), reference(x, w, c, 1e-5f), "37 x 7 x 40");
}

TEST(HeadRmsNorm, BitsDoNotDependOnThreadsOrMatchTheCpuProvider) {
  const Case c{16, 12, 64, 0, 12};
  const auto x = normal_bf16(size_t(c.rows * c.heads * c.dim), 11, 1.5);
  const auto w = weights(c.dim, 12);
  const auto one = run(cpu_queue(1), x, w, c, 1e-6f);
  if (!provider_is_cuda()) {
    EXPECT_EQ(bits(run(cpu_queue(2), x, w, c, 1e-6f)), bits(one));
    return;
  }
  expect_close(run(provider_queue(0), x, w, c, 1e-6f), one, "vs CPU provider");
}

}  // namespace
}  // namespace music3::optest
