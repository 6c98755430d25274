// add_rms_norm_matmul_bt gate: the op's entry point against add_rms_norm then matmul_bt (or matmul_bt_silu) issued as
// two ops on the same device, bit for bit in both of its outputs (out and h_out), over the decode step's row counts
// (1, 2) and more (3, 4), K on each GEMV chunk count (J 1 .. 4) and beyond (K > 8192, K % 8), operands off 16 bytes,
// a broadcast residual row, the plain and the SiLU form. No provider fuses the op (the prologue kernel was removed in
// session 35, measured slower), so the entry composes the ops on every device; this gate holds it to that.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/core/device_array.h"
#include "engine/ops/ops.h"
#include "gates/ops/support/numerics.h"
#include "gates/ops/support/provider_under_test.h"

namespace music3::optest {
namespace {

struct Case {
  int64_t m, n, k;     // rows, output width (the SiLU form: I, with b of 2I rows), reduction width
  bool silu = false;
  int64_t skew = 0;    // elements x, r and b sit into their buffers (1: off 16 bytes)
  bool broadcast = false;  // r is one [1, K] row for every row of x
};

struct Inputs {
  std::vector<bf16> x, r, w, b;
};

struct Outputs {
  std::vector<bf16> out, h;
};

int64_t b_rows(const Case& c) { return c.silu ? 2 * c.n : c.n; }

// `t` viewed `skew` elements into its buffer, shaped `shape`.
Tensor skewed(const DeviceArray& buffer, int64_t skew, Shape shape) {
  Tensor t = buffer.tensor();
  t.data = t.as<bf16>() + skew;
  t.shape = shape;
  return t;
}

DeviceArray placed(const Queue& q, const std::vector<bf16>& values, int64_t skew) {
  std::vector<bf16> host(size_t(skew), bf16{0x7FC0});
  host.insert(host.end(), values.begin(), values.end());
  DeviceArray a(q, DType::BF16, {int64_t(host.size())});
  a.upload(host);
  return a;
}

// `fused`: through add_rms_norm_matmul_bt, else add_rms_norm and then the matmul as two ops.
Outputs run(const Queue& q, const Case& c, const Inputs& in, bool fused) {
  const int64_t r_rows = c.broadcast ? 1 : c.m;
  DeviceArray xb = placed(q, in.x, c.skew), rb = placed(q, in.r, c.skew), bb = placed(q, in.b, c.skew);
  DeviceArray wb(q, DType::BF16, {c.k}), hb(q, DType::BF16, {c.m, c.k}), ab(q, DType::BF16, {c.m, c.k});
  DeviceArray gu(q, DType::BF16, {c.m, 2 * c.n}), ob(q, DType::BF16, {c.m, c.n});
  wb.upload(in.w);
  for (DeviceArray* t : {&hb, &ab, &gu, &ob}) t->poison();
  const Tensor x = skewed(xb, c.skew, {c.m, c.k}), r = skewed(rb, c.skew, {r_rows, c.k});
  const Tensor b = skewed(bb, c.skew, {b_rows(c), c.k});
  const float eps = 1e-6f;
  if (fused) {
    ops::add_rms_norm_matmul_bt(q, {.x = x, .r = r, .w = wb.tensor(), .h_out = hb.tensor(), .a_out = ab.tensor(),
                                    .eps = eps, .b = b, .out = ob.tensor(),
                                    .gate_up = c.silu ? gu.tensor() : Tensor{}});
  } else {
    ops::add_rms_norm(q, x, r, wb.tensor(), eps, hb.tensor(), ab.tensor());
    if (c.silu)
      ops::matmul_bt_silu(q, ab.tensor(), b, gu.tensor(), ob.tensor());
    else
      ops::matmul_bt(q, ab.tensor(), b, ob.tensor());
  }
  return {ob.download<bf16>(), hb.download<bf16>()};
}

void expect_same(const Outputs& got, const Outputs& want, const std::string& what) {
  EXPECT_EQ(bits(got.out), bits(want.out)) << "out, " << what;
  EXPECT_EQ(bits(got.h), bits(want.h)) << "h_out, " << what;
}

// The entry point's bits against the two ops'.
void expect_two_ops_bits(const Case& c, const Inputs& in, const std::string& what) {
  expect_same(run(provider_queue(0), c, in, true), run(provider_queue(0), c, in, false), provider_name() + ", " + what);
}

std::string describe(const Case& c) {
  return std::string(c.silu ? "silu " : "") + "M=" + std::to_string(c.m) + " N=" + std::to_string(c.n) +
         " K=" + std::to_string(c.k) + (c.skew ? " skewed" : "") + (c.broadcast ? " broadcast r" : "");
}

// x and r of unit scale (the residual stream and a block's output), a norm weight around 1, small weights.
Inputs inputs(const Case& c, uint64_t seed, double scale = 1.0) {
  Inputs in;
  in.x = normal_bf16(c.m * c.k, seed, scale);
  in.r = normal_bf16((c.broadcast ? 1 : c.m) * c.k, seed + 1, scale);
  in.w = normal_bf16(c.k, seed + 2, 0.2);
  for (bf16& v : in.w) v = to_bf16(1.0f + to_f32(v));
  in.b = normal_bf16(b_rows(c) * c.k, seed + 3, 0.03);
  return in;
}

TEST(AddRmsNormMatmulBt, EqualsAddRmsNormThenMatmulBitForBit) {
  const Case cases[] = {
      {2, 96, 4096},           {2, 96, 4096, true},   {1, 40, 1024},         {1, 40, 1024, true},
      {2, 300, 2048},          {2, 50, 6144, true},   {1, 33, 8192},         {2, 17, 8192, true},
      {2, 24, 768},            {3, 50, 4096},         {4, 20, 2048, true},   {2, 33, 12288},
      {2, 24, 100},            {2, 48, 1024, false, 1}, {2, 48, 1024, true, 0, true}};
  uint64_t seed = 300;
  for (const Case& c : cases) {
    expect_two_ops_bits(c, inputs(c, seed), describe(c));
    seed += 4;
  }
}

// Rows so small that eps decides the norm (ss / K ~ 1e-8 against eps 1e-6), and rows of large values whose sum of
// squares is far from every partial: a composition that dropped eps or reordered the sum would show in the bits.
TEST(AddRmsNormMatmulBt, TinyAndLargeRowsKeepTheTwoOpsBits) {
  for (const double scale : {1e-4, 300.0}) {
    for (const bool silu : {false, true}) {
      const Case c{2, 64, 4096, silu};
      expect_two_ops_bits(c, inputs(c, 900, scale), describe(c) + " scale " + std::to_string(scale));
    }
  }
}

}  // namespace
}  // namespace music3::optest
