// silu_and_mul gate: the provider under test against an independent f64 reference
// with the contract's two bf16 rounding points, saturating gates included, thread-
// count invariance (CPU) and agreement with the CPU provider (CUDA).
#include <gtest/gtest.h>

#include <cmath>
#include <iterator>
#include <tuple>

#include "engine/ops/ops.h"
#include "gates/lib/ulp_stats.h"
#include "gates/ops/support/numerics.h"
#include "gates/ops/support/provider_under_test.h"
#include "engine/core/device_array.h"

namespace music3::optest {
namespace {

std::vector<bf16> reference(const std::vector<bf16>& in, int64_t rows, int64_t inner) {
  std::vector<bf16> out(static_cast<size_t>(rows * inner));
  for (int64_t m = 0; m < rows; ++m)
    for (int64_t i = 0; i < inner; ++i) {
      const double g = to_f32(in[m * 2 * inner + i]), u = to_f32(in[m * 2 * inner + inner + i]);
      const double silu = to_f32(bf16_from_f64(g / (1.0 + std::exp(-g))));
      out[m * inner + i] = bf16_from_f64(silu * u);
    }
  return out;
}

std::vector<bf16> inputs(int64_t rows, int64_t inner, uint64_t seed) {
  auto in = normal_bf16(rows * 2 * inner, seed, 2.5);
  const float extremes[] = {-100.0f, -30.0f, -9.0f, 0.0f, 9.0f, 30.0f, 100.0f};
  for (size_t j = 0; j < std::size(extremes); ++j) in[j] = to_bf16(extremes[j]);  // gates of row 0
  return in;
}

std::vector<bf16> run(const Queue& q, const std::vector<bf16>& in, int64_t rows, int64_t inner,
                      bool gate_second = false) {
  DeviceArray ib(q, DType::BF16, {rows, 2 * inner}), ob(q, DType::BF16, {rows, inner});
  ib.upload(in);
  ob.poison();
  ops::silu_and_mul(q, ib, ob, gate_second);
  return ob.download<bf16>();
}

void expect_close(const std::vector<bf16>& got, const std::vector<bf16>& ref, const std::string& what) {
  const gates::UlpStats s = gates::ulp_stats(got, ref);
  report(provider_name() + " " + what, s);
  SCOPED_TRACE(provider_name() + " " + what + ": " + s.summary());
  EXPECT_EQ(s.nonfinite, 0u);
  EXPECT_EQ(s.nonzero_refs + s.zero_refs + s.nonfinite, s.compared);
  EXPECT_EQ(s.zero_bucket_max_abs, 0.0);
  EXPECT_LE(s.worst, 1.0);
  EXPECT_GE(static_cast<double>(s.exact), 0.995 * static_cast<double>(s.nonzero_refs));
}

// 1380 x 64 and 300 x 8192: many rows of the CUDA 8-wide path's 2-D grid (the DiT's rows: 1,380).
TEST(SiluAndMul, MatchesF64Reference) {
  for (auto [rows, inner, seed] :
       {std::tuple{2, 6144, 1}, std::tuple{5, 1001, 2}, std::tuple{1380, 64, 4}, std::tuple{300, 8192, 5}}) {
    const auto in = inputs(rows, inner, seed);
    expect_close(run(provider_queue(0), in, rows, inner), reference(in, rows, inner),
                 "rows " + std::to_string(rows) + " inner " + std::to_string(inner));
  }
}

TEST(SiluAndMul, BitsDoNotDependOnThreadsOrMatchTheCpuProvider) {
  const int64_t rows = 9, inner = 3000;
  const auto in = inputs(rows, inner, 3);
  const auto one_thread = run(cpu_queue(1), in, rows, inner);
  if (!provider_is_cuda()) {
    EXPECT_EQ(bits(run(cpu_queue(2), in, rows, inner)), bits(one_thread));
    EXPECT_EQ(bits(run(cpu_queue(0), in, rows, inner)), bits(one_thread));
    return;
  }
  expect_close(run(provider_queue(0), in, rows, inner), one_thread, "vs CPU provider");
}

// gate_second on a row is the default on the row with its halves swapped, bit for bit (both CUDA paths: the
// 8-wide inner 6144, also at 1380 rows of 64, and the scalar 1001).
TEST(SiluAndMul, GateSecondIsTheSwappedDefault) {
  for (auto [rows, inner, seed] : {std::tuple{3, 6144, 11}, std::tuple{4, 1001, 12}, std::tuple{1380, 64, 13}}) {
    const auto in = inputs(rows, inner, seed);
    std::vector<bf16> swapped(in.size());
    for (int64_t m = 0; m < rows; ++m)
      for (int64_t i = 0; i < inner; ++i) {
        swapped[size_t(m * 2 * inner + i)] = in[size_t(m * 2 * inner + inner + i)];
        swapped[size_t(m * 2 * inner + inner + i)] = in[size_t(m * 2 * inner + i)];
      }
    EXPECT_EQ(bits(run(provider_queue(0), in, rows, inner, true)), bits(run(provider_queue(0), swapped, rows, inner)))
        << provider_name() << " inner " << inner;
    EXPECT_NE(bits(run(provider_queue(0), in, rows, inner, true)), bits(run(provider_queue(0), in, rows, inner)));
  }
}

}  // namespace
}  // namespace music3::optest
