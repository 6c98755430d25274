// matmul_bt_swiglu gate: the fused op equals silu_and_mul then matmul_bt on the same
// provider, bit for bit, for M = 1 .. 4 at the model's down projection (I = 6144) and at
// other widths (I % 8 != 0 too), and with gate_up placed off 16-byte alignment (CUDA:
// the fused op's scalar path against the unfused fast path, so the summation order is
// shown not to depend on the path). M > 4 (CUDA's unfused matmul_bt is cuBLAS there) is
// held to the f64 reference instead. Plus its argument refusals.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>

#include "engine/ops/ops.h"
#include "gates/ops/support/numerics.h"
#include "gates/ops/support/provider_under_test.h"
#include "gates/ops/support/test_buffer.h"

namespace music3::optest {
namespace {

struct Dims {
  int64_t m, n, inner;
};

std::vector<bf16> gate_up_values(Dims d, uint64_t seed) {
  auto v = random_bf16(static_cast<size_t>(d.m * 2 * d.inner), seed, 2.5);
  const float extremes[] = {-100.0f, -30.0f, -9.0f, 0.0f, 9.0f, 30.0f, 100.0f};  // saturating gates of row 0
  for (size_t j = 0; j < std::size(extremes) && j < v.size(); ++j) v[j] = to_bf16(extremes[j]);
  return v;
}

// Runs the fused op with gate_up placed `skew` elements into its buffer (skew 1 breaks 16-byte alignment).
std::vector<bf16> fused(const Queue& q, const std::vector<bf16>& gu, const std::vector<bf16>& b, Dims d,
                        int64_t skew = 0) {
  TestBuffer gb(q, DType::BF16, {d.m * 2 * d.inner + skew}), bb(q, DType::BF16, {d.n, d.inner});
  TestBuffer ob(q, DType::BF16, {d.m, d.n});
  std::vector<bf16> g_host(static_cast<size_t>(skew), bf16{0x7FC0});
  g_host.insert(g_host.end(), gu.begin(), gu.end());
  gb.upload(g_host);
  bb.upload(b);
  ob.poison();
  Tensor gv = gb.tensor();
  gv.data = gv.as<bf16>() + skew;
  gv.shape = {d.m, 2 * d.inner};
  ops::matmul_bt_swiglu(q, gv, bb, ob);
  return ob.download<bf16>();
}

std::vector<bf16> unfused(const Queue& q, const std::vector<bf16>& gu, const std::vector<bf16>& b, Dims d) {
  TestBuffer gb(q, DType::BF16, {d.m, 2 * d.inner}), act(q, DType::BF16, {d.m, d.inner});
  TestBuffer bb(q, DType::BF16, {d.n, d.inner}), ob(q, DType::BF16, {d.m, d.n});
  gb.upload(gu);
  bb.upload(b);
  act.poison();
  ob.poison();
  ops::silu_and_mul(q, gb, act);
  ops::matmul_bt(q, act, bb, ob);
  return ob.download<bf16>();
}

std::string name(Dims d) {
  return provider_name() + " M=" + std::to_string(d.m) + " N=" + std::to_string(d.n) + " I=" + std::to_string(d.inner);
}

TEST(MatmulBTSwiglu, EqualsSiluAndMulThenMatmulBT) {
  const Dims shapes[] = {{1, 64, 6144}, {2, 130, 6144}, {3, 70, 6144}, {4, 96, 6144},
                         {2, 257, 1000}, {4, 33, 100}, {1, 40, 8200}};
  uint64_t seed = 1;
  for (const Dims d : shapes) {
    const auto gu = gate_up_values(d, seed++);
    const auto b = random_bf16(static_cast<size_t>(d.n * d.inner), seed++, 0.02);
    const Queue q = provider_queue(0);
    const auto want = unfused(q, gu, b, d);
    EXPECT_EQ(bits(fused(q, gu, b, d)), bits(want)) << name(d);
    EXPECT_EQ(bits(fused(q, gu, b, d, 1)), bits(want)) << name(d) << ", gate_up off 16-byte alignment";
    EXPECT_EQ(ulp_stats(want, want).nonfinite, 0) << name(d);
  }
}

// Beyond 4 rows: the f64 reference of silu_and_mul's stored values times b, rounded once.
TEST(MatmulBTSwiglu, MatchesF64ReferenceBeyondFourRows) {
  const Dims d{9, 100, 4096};
  const auto gu = gate_up_values(d, 50);
  const auto b = random_bf16(static_cast<size_t>(d.n * d.inner), 51, 0.02);
  std::vector<double> act(static_cast<size_t>(d.m * d.inner));
  for (int64_t m = 0; m < d.m; ++m)
    for (int64_t i = 0; i < d.inner; ++i) {
      const double g = to_f32(gu[m * 2 * d.inner + i]), u = to_f32(gu[m * 2 * d.inner + d.inner + i]);
      const double silu = to_f32(bf16_from_f64(g / (1.0 + std::exp(-g))));
      act[m * d.inner + i] = to_f32(bf16_from_f64(silu * u));
    }
  std::vector<bf16> ref(static_cast<size_t>(d.m * d.n));
  for (int64_t m = 0; m < d.m; ++m)
    for (int64_t n = 0; n < d.n; ++n) {
      double acc = 0;
      for (int64_t i = 0; i < d.inner; ++i) acc += act[m * d.inner + i] * to_f32(b[n * d.inner + i]);
      ref[m * d.n + n] = bf16_from_f64(acc);
    }
  const UlpStats s = ulp_stats(fused(provider_queue(0), gu, b, d), ref);
  report(name(d), s);
  SCOPED_TRACE(name(d) + ": " + s.str());
  EXPECT_EQ(s.nonfinite, 0);
  EXPECT_LE(s.max_ulp_large, 1.0);
  EXPECT_GE(static_cast<double>(s.within_one), 0.99 * static_cast<double>(s.ulp_scored()));
}

TEST(MatmulBTSwiglu, RefusesBadArguments) {
  if (provider_is_cuda()) GTEST_SKIP() << "entry checks run before any provider (CPU test)";
  const Queue q = cpu_queue(1);
  TestBuffer gu(q, DType::BF16, {2, 64}), odd(q, DType::BF16, {2, 63}), b(q, DType::BF16, {8, 32});
  TestBuffer wide_b(q, DType::BF16, {8, 64}), out(q, DType::BF16, {2, 8}), bad_out(q, DType::BF16, {2, 9});
  const auto refused = [](const std::function<void()>& call, const std::string& arg) {
    try {
      call();
      ADD_FAILURE() << "no refusal for argument '" << arg << "'";
    } catch (const std::invalid_argument& e) {
      const std::string want = "matmul_bt_swiglu: argument '" + arg + "'";
      EXPECT_EQ(std::string(e.what()).rfind(want, 0), 0u) << e.what();
    }
  };
  EXPECT_NO_THROW(ops::matmul_bt_swiglu(q, gu, b, out));
  refused([&] { ops::matmul_bt_swiglu(q, odd, b, out); }, "gate_up");
  refused([&] { ops::matmul_bt_swiglu(q, gu, wide_b, out); }, "b");
  refused([&] { ops::matmul_bt_swiglu(q, gu, b, bad_out); }, "out");
}

}  // namespace
}  // namespace music3::optest
