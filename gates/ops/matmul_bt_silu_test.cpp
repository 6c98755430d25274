// matmul_bt_silu gate: the fused op against matmul_bt then silu_and_mul issued as two ops on the same device, bit for
// bit, over the LM's and the depth stage's row counts (1, 2, 3, 4), output widths below and above a grid, K on every
// GEMV chunk count (J 1 .. 6) and shapes the GEMV's fast path declines (K % 8, operands off 16 bytes): once through
// the entry point as the default runs it (on CUDA cuda.matmul_bt_silu.gemv, which must take every call it is for; the
// CPU has no fusing provider, so its entry issues the two ops), and on CUDA once more with the fusing provider
// switched off, where the entry issues the two ops and the provider takes nothing. The twin
// op_matmul_bt_silu_cuda_l2_ahead holds the opt-in cuda.matmul_bt_silu.gemv.l2_ahead to the same.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/core/device_array.h"
#include "engine/ops/ops.h"
#include "engine/ops/registry.h"
#include "gates/ops/support/numerics.h"
#include "gates/ops/support/provider_under_test.h"
#include "gates/ops/support/provider_use.h"

namespace music3::optest {
namespace {

struct Case {
  int64_t m, i, k;  // rows, output width I (b has 2I rows), reduction width
  int64_t skew = 0;  // elements a and b sit into their buffers (1: off 16 bytes)
};

// The operands placed `skew` elements into their buffers; `fused` through matmul_bt_silu, else the two ops.
std::vector<bf16> run(const Queue& q, const Case& c, const std::vector<bf16>& a, const std::vector<bf16>& b,
                      bool fused) {
  DeviceArray ab(q, DType::BF16, {c.m * c.k + c.skew}), bb(q, DType::BF16, {2 * c.i * c.k + c.skew});
  DeviceArray gu(q, DType::BF16, {c.m, 2 * c.i}), ob(q, DType::BF16, {c.m, c.i});
  std::vector<bf16> a_host(size_t(c.skew), bf16{0x7FC0}), b_host(size_t(c.skew), bf16{0x7FC0});
  a_host.insert(a_host.end(), a.begin(), a.end());
  b_host.insert(b_host.end(), b.begin(), b.end());
  ab.upload(a_host);
  bb.upload(b_host);
  gu.poison();
  ob.poison();
  Tensor av = ab.tensor(), bv = bb.tensor();
  av.data = av.as<bf16>() + c.skew;
  av.shape = {c.m, c.k};
  bv.data = bv.as<bf16>() + c.skew;
  bv.shape = {2 * c.i, c.k};
  if (fused) {
    ops::matmul_bt_silu(q, av, bv, gu, ob);
  } else {
    ops::matmul_bt(q, av, bv, gu);
    ops::silu_and_mul(q, gu, ob);
  }
  return ob.download<bf16>();
}

constexpr const char* kFusing = "cuda.matmul_bt_silu.gemv";
// The same kernel asking its weight rows into L2 (opt-in; the twin op_matmul_bt_silu_cuda_l2_ahead enables it): where
// enabled it outranks kFusing and must take the same calls with the same bits.
constexpr const char* kFusingL2 = "cuda.matmul_bt_silu.gemv.l2_ahead";

// The provider expected to take the fast shapes: kFusingL2 where enabled, else kFusing.
const char* fusing_provider() {
  bool l2 = false;
  provider_calls(kFusingL2, l2);
  return l2 ? kFusingL2 : kFusing;
}

// Whether the fusing provider takes the case (the GEMV's fast shapes).
bool fused_shape(const Case& c) {
  return c.m <= 4 && c.k % 8 == 0 && c.k <= (c.m <= 2 ? 12288 : 8192) && c.skew % 8 == 0;
}

// The fusing providers switched off for one scope, and back to their states after it.
struct FusingOff {
  FusingOff() {
    provider_calls(kFusingL2, l2_was_);
    ops::registry().set_enabled(kFusing, false);
    ops::registry().set_enabled(kFusingL2, false);
  }
  ~FusingOff() {
    ops::registry().set_enabled(kFusing, true);
    ops::registry().set_enabled(kFusingL2, l2_was_);
  }
  bool l2_was_ = false;
};

// The entry point's bits against the two ops', as the default runs it and (CUDA) with the fusing provider off.
void expect_two_ops_bits(const Case& c, const std::vector<bf16>& a, const std::vector<bf16>& b,
                         const std::string& what) {
  const auto two_ops = run(provider_queue(0), c, a, b, false);
  const char* fusing = fusing_provider();
  bool enabled = false;
  const uint64_t before = provider_calls(fusing, enabled);
  const auto fused = run(provider_queue(0), c, a, b, true);
  const uint64_t taken = provider_calls(fusing, enabled) - before;
  EXPECT_EQ(taken, provider_is_cuda() && fused_shape(c) ? 1u : 0u) << fusing << " by default, " << what;
  EXPECT_EQ(bits(fused), bits(two_ops)) << provider_name() << " default, " << what;
  if (!provider_is_cuda()) return;
  const FusingOff off;
  const uint64_t off_before = provider_calls(fusing, enabled);
  EXPECT_EQ(bits(run(provider_queue(0), c, a, b, true)), bits(two_ops)) << fusing << " off, " << what;
  EXPECT_EQ(provider_calls(fusing, enabled), off_before) << fusing << " took a call while off, " << what;
}

TEST(MatmulBtSilu, EqualsMatmulBtThenSiluAndMulBitForBit) {
  const Case cases[] = {{2, 96, 4096},  {1, 40, 1024},   {2, 3, 512},    {4, 64, 2048}, {3, 50, 4096},
                        {2, 33, 12288}, {1, 300, 10240}, {2, 700, 6144}, {4, 17, 8192}, {2, 24, 100},
                        {2, 48, 1024, 1}, {8, 20, 256}};
  uint64_t seed = 100;
  for (const Case& c : cases) {
    const std::string what = "M=" + std::to_string(c.m) + " I=" + std::to_string(c.i) + " K=" + std::to_string(c.k) +
                             (c.skew ? " skewed" : "");
    const auto a = normal_bf16(c.m * c.k, seed++, 1.0);
    const auto b = normal_bf16(2 * c.i * c.k, seed++, 0.03);
    expect_two_ops_bits(c, a, b, what);
  }
}

// The gate values reach both of SiLU's tails: gate columns of large negative and large positive sums.
TEST(MatmulBtSilu, SaturatedGatesKeepTheTwoOpsBits) {
  const Case c{2, 64, 512};
  auto a = normal_bf16(c.m * c.k, 7, 1.0);
  auto b = normal_bf16(2 * c.i * c.k, 8, 0.03);
  for (int64_t j = 0; j < c.k; ++j) {  // row 0 of a: gate column 0's products all negative, column 1's all positive
    b[size_t(j)] = to_bf16(a[size_t(j)].bits & 0x8000 ? 4.0f : -4.0f);
    b[size_t(c.k + j)] = to_bf16(a[size_t(j)].bits & 0x8000 ? -4.0f : 4.0f);
  }
  expect_two_ops_bits(c, a, b, "saturated gates");
}

}  // namespace
}  // namespace music3::optest
