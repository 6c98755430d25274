// layer_norm gate: the provider under test against an f64 reference (mean, biased variance, (x - mean) * rstd * w
// + b, rounded once), the fused residual form bit-identical to add then layer_norm on the same provider (h_out ==
// x in place included), thread-count invariance (CPU) and agreement with the CPU provider (CUDA). The widths reach
// every CUDA path: 2048, 1000 and 24 the warp-per-row kernel (full, partial and one-chunk rows), 100 the block
// register kernel, 3000 the strided one; and the DiT's 1,380 rows.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/core/device_array.h"
#include "engine/ops/registry.h"
#include "engine/ops/transformer_ops.h"
#include "gates/lib/ulp_stats.h"
#include "gates/ops/support/numerics.h"
#include "gates/ops/support/provider_under_test.h"
#include "gates/ops/support/provider_use.h"

namespace music3::optest {
namespace {

constexpr float kEps = 1e-5f;

std::vector<bf16> reference(const std::vector<bf16>& x, const std::vector<bf16>& w, const std::vector<bf16>& b,
                            int64_t rows, int64_t n) {
  std::vector<bf16> out(x.size());
  for (int64_t m = 0; m < rows; ++m) {
    double mean = 0, var = 0;
    for (int64_t i = 0; i < n; ++i) mean += to_f32(x[size_t(m * n + i)]);
    mean /= double(n);
    for (int64_t i = 0; i < n; ++i) var += std::pow(to_f32(x[size_t(m * n + i)]) - mean, 2);
    const double rstd = 1.0 / std::sqrt(var / double(n) + kEps);
    for (int64_t i = 0; i < n; ++i)
      out[size_t(m * n + i)] =
          bf16_from_f64((to_f32(x[size_t(m * n + i)]) - mean) * rstd * to_f32(w[size_t(i)]) + to_f32(b[size_t(i)]));
  }
  return out;
}

struct Inputs {
  std::vector<bf16> x, r, w, b;
};

Inputs make(int64_t rows, int64_t n, uint64_t seed) {
  auto x = normal_bf16(size_t(rows * n), seed, 2.0);
  for (int64_t i = 0; i < n; ++i) x[size_t(i)] = to_bf16(to_f32(x[size_t(i)]) + 30.0f);  // row 0 off-centre
  auto w = normal_bf16(size_t(n), seed + 2, 0.1);
  for (auto& v : w) v = to_bf16(1.0f + to_f32(v));
  return {x, normal_bf16(size_t(rows * n), seed + 1, 2.0), w, normal_bf16(size_t(n), seed + 3, 0.1)};
}

// a_out of layer_norm(x), or of add_layer_norm(x, r) with h_out written into *h (in place over x when asked).
std::vector<bf16> run(const Queue& q, const Inputs& in, int64_t rows, int64_t n, bool residual, bool in_place,
                      std::vector<bf16>* h = nullptr) {
  DeviceArray xb(q, DType::BF16, {rows, n}), rb(q, DType::BF16, {rows, n}), hb(q, DType::BF16, {rows, n});
  DeviceArray wb(q, DType::BF16, {n}), bb(q, DType::BF16, {n}), ab(q, DType::BF16, {rows, n});
  xb.upload(in.x);
  rb.upload(in.r);
  wb.upload(in.w);
  bb.upload(in.b);
  hb.poison();
  ab.poison();
  if (!residual) {
    ops::layer_norm(q, xb, wb, bb, kEps, ab);
  } else {
    const DeviceArray& h_out = in_place ? xb : hb;
    ops::add_layer_norm(q, xb, rb, wb, bb, kEps, h_out, ab);
    if (h) *h = h_out.download<bf16>();
  }
  return ab.download<bf16>();
}

TEST(LayerNorm, MatchesF64Reference) {
  for (auto [rows, n] : {std::pair<int64_t, int64_t>{5, 2048}, {3, 24}, {2, 1000}, {3, 100}, {2, 3000}}) {
    const Inputs in = make(rows, n, uint64_t(n));
    const auto s = gates::ulp_stats(run(provider_queue(0), in, rows, n, false, false), reference(in.x, in.w, in.b, rows, n));
    report(provider_name() + " N=" + std::to_string(n), s);
    EXPECT_EQ(s.nonfinite, 0u);
    EXPECT_LE(s.max_conditioned, 2.0) << s.summary();
    EXPECT_GE(double(s.within_one), 0.99 * double(s.nonzero_refs)) << s.summary();
  }
}

// N = 2048 (CUDA: one warp per row), 1004 (not a multiple of 8, so CUDA's register path: the H200 battery at 048daab
// found op_layer_norm_cuda blind to two of its mutations while only 2048 and 3000 were here) and 3000 (CUDA: the
// strided passes over memory).
class LayerNormWidth : public ::testing::TestWithParam<int64_t> {};

TEST_P(LayerNormWidth, FusedResidualIsAddThenNorm) {
  const int64_t rows = 4, n = GetParam();
  const Inputs in = make(rows, n, 5);
  std::vector<bf16> h, h_in_place;
  const auto fused = run(provider_queue(0), in, rows, n, true, false, &h);
  const auto fused_in_place = run(provider_queue(0), in, rows, n, true, true, &h_in_place);
  std::vector<bf16> sum(in.x.size());
  for (size_t i = 0; i < sum.size(); ++i) sum[i] = to_bf16(to_f32(in.x[i]) + to_f32(in.r[i]));
  EXPECT_EQ(bits(h), bits(sum));
  EXPECT_EQ(bits(h_in_place), bits(sum));
  Inputs plain = in;
  plain.x = sum;
  EXPECT_EQ(bits(fused), bits(run(provider_queue(0), plain, rows, n, false, false)));
  EXPECT_EQ(bits(fused_in_place), bits(fused));
}

INSTANTIATE_TEST_SUITE_P(Widths, LayerNormWidth, ::testing::Values(int64_t{2048}, int64_t{1004}, int64_t{3000}));

// The DiT's shape (1,380 rows of 2,048) against the f64 reference.
TEST(LayerNorm, ManyRows) {
  const int64_t rows = 1380, n = 2048;
  const Inputs in = make(rows, n, 13);
  const auto plain = run(provider_queue(0), in, rows, n, false, false);
  const auto s = gates::ulp_stats(plain, reference(in.x, in.w, in.b, rows, n));
  report(provider_name() + " rows=1380 N=2048", s);
  EXPECT_EQ(s.nonfinite, 0u);
  EXPECT_LE(s.max_conditioned, 2.0) << s.summary();
  EXPECT_GE(double(s.within_one), 0.99 * double(s.nonzero_refs)) << s.summary();
}

TEST(LayerNorm, BitsDoNotDependOnThreadsOrMatchTheCpuProvider) {
  const int64_t rows = 9, n = 2048;
  const Inputs in = make(rows, n, 9);
  const auto one = run(cpu_queue(1), in, rows, n, true, false);
  if (!provider_is_cuda()) {
    EXPECT_EQ(bits(run(cpu_queue(2), in, rows, n, true, false)), bits(one));
    return;
  }
  const auto s = gates::ulp_stats(run(provider_queue(0), in, rows, n, true, false), one);
  report("cuda vs cpu provider", s);
  EXPECT_LE(s.max_conditioned, 1.0) << s.summary();
}

}  // namespace
}  // namespace music3::optest
