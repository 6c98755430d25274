// self_attention gate: the provider under test against an f64 reference (softmax(scale q.k) v over every key of
// the row's batch, no rounding inside), over the DiT's shape (head 64, 690 tokens, batch 2: tiles with a ragged
// end) and odd ones (head widths 12 and 8, padded on CUDA; one token; batch 1); the contract rounds P to bf16
// before P.V, so the gate is a ULP band, not bits. Thread-count invariance (CPU) and agreement with the CPU
// provider (CUDA). The rotary form (cos/sin tables) gives exactly the bits of the rotation computed on the host
// (gates/ops/support/rope_reference.h: positions from 0, the 2 H q|k heads) followed by self_attention on the same
// provider, partial and full rotary, 16-byte and scalar load paths; with QkvAfter::scratch the same bits, v
// untouched and every q|k element left as it was or rotated.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/core/device_array.h"
#include "engine/ops/transformer_ops.h"
#include "gates/lib/ulp_stats.h"
#include "gates/ops/support/numerics.h"
#include "gates/ops/support/provider_under_test.h"
#include "gates/ops/support/rope_reference.h"

namespace music3::optest {
namespace {

struct Case {
  int64_t tokens, batch;
  int heads, dim;
};

float scale_of(const Case& c) { return static_cast<float>(1.0 / std::sqrt(double(c.dim))); }

std::vector<bf16> reference(const std::vector<bf16>& qkv, const Case& c) {
  const int64_t W = int64_t(c.heads) * c.dim, rows = c.tokens * c.batch;
  std::vector<bf16> out(size_t(rows * W));
  std::vector<double> s(size_t(c.tokens));
  for (int64_t r = 0; r < rows; ++r)
    for (int h = 0; h < c.heads; ++h) {
      const int64_t b = r % c.batch;
      double mx = -INFINITY, sum = 0;
      for (int64_t t = 0; t < c.tokens; ++t) {
        double dot = 0;
        for (int d = 0; d < c.dim; ++d)
          dot += double(to_f32(qkv[size_t(r * 3 * W + h * c.dim + d)])) *
                 to_f32(qkv[size_t((t * c.batch + b) * 3 * W + W + h * c.dim + d)]);
        s[size_t(t)] = dot * scale_of(c);
        mx = std::max(mx, s[size_t(t)]);
      }
      for (auto& v : s) sum += (v = std::exp(v - mx));
      for (int d = 0; d < c.dim; ++d) {
        double acc = 0;
        for (int64_t t = 0; t < c.tokens; ++t)
          acc += s[size_t(t)] * to_f32(qkv[size_t((t * c.batch + b) * 3 * W + 2 * W + h * c.dim + d)]);
        out[size_t(r * W + h * c.dim + d)] = bf16_from_f64(acc / sum);
      }
    }
  return out;
}

std::vector<bf16> run(const Queue& q, const std::vector<bf16>& qkv, const Case& c) {
  const int64_t W = int64_t(c.heads) * c.dim, rows = c.tokens * c.batch;
  DeviceArray ib(q, DType::BF16, {rows, 3 * W}), ob(q, DType::BF16, {rows, W});
  ib.upload(qkv);
  ob.poison();
  ops::self_attention(q, ib, c.heads, int(c.batch), scale_of(c), ob);
  return ob.download<bf16>();
}

std::vector<bf16> inputs(const Case& c, uint64_t seed) {
  return normal_bf16(size_t(c.tokens * c.batch * 3 * c.heads * c.dim), seed, 1.5);
}

void expect_band(const std::vector<bf16>& got, const std::vector<bf16>& ref, const std::string& what) {
  const gates::UlpStats s = gates::ulp_stats(got, ref);
  report(provider_name() + " " + what, s);
  SCOPED_TRACE(provider_name() + " " + what + ": " + s.summary());
  EXPECT_EQ(s.nonfinite, 0u);
  EXPECT_LE(s.median, 1.0);
  EXPECT_LE(s.max_conditioned, 8.0);
}

TEST(SelfAttention, MatchesF64Reference) {
  uint64_t seed = 1;
  for (const Case c : {Case{690, 2, 2, 64}, Case{70, 1, 3, 12}, Case{1, 2, 2, 8}, Case{129, 2, 1, 32}}) {
    const auto qkv = inputs(c, seed++);
    expect_band(run(provider_queue(0), qkv, c), reference(qkv, c),
                "S=" + std::to_string(c.tokens) + " B=" + std::to_string(c.batch) + " D=" + std::to_string(c.dim));
  }
}

TEST(SelfAttention, BatchesDoNotMix) {
  const Case one{100, 1, 2, 64}, two{100, 2, 2, 64};
  const auto a = inputs(one, 21), b = inputs(one, 22);
  std::vector<bf16> both(a.size() * 2);
  const size_t row = size_t(3 * 2 * 64);
  for (int64_t t = 0; t < 100; ++t) {
    std::copy(a.begin() + t * row, a.begin() + (t + 1) * row, both.begin() + (2 * t) * row);
    std::copy(b.begin() + t * row, b.begin() + (t + 1) * row, both.begin() + (2 * t + 1) * row);
  }
  const auto got = run(provider_queue(0), both, two), ga = run(provider_queue(0), a, one),
             gb = run(provider_queue(0), b, one);
  const size_t out_row = size_t(2 * 64);
  for (int64_t t = 0; t < 100; ++t)
    for (size_t i = 0; i < out_row; ++i) {
      ASSERT_EQ(got[(2 * t) * out_row + i].bits, ga[t * out_row + i].bits) << t;
      ASSERT_EQ(got[(2 * t + 1) * out_row + i].bits, gb[t * out_row + i].bits) << t;
    }
}

TEST(SelfAttention, RotaryFormIsTheRotationThenAttention) {
  struct Rotary {
    Case c;
    int64_t rot, positions;
  };
  uint64_t seed = 41;
  // Head 64 / rotary 32 and head 32 / rotary 16 take cuDNN's 16-byte rotary copy; head 16 / rotary 8 its scalar
  // form (rot / 2 is not a whole vector); head 12 the native kernel only.
  for (const Rotary r : {Rotary{{690, 2, 2, 64}, 32, 691}, Rotary{{70, 1, 3, 12}, 12, 70}, Rotary{{129, 2, 1, 32}, 16, 140},
                         Rotary{{70, 2, 2, 16}, 8, 72}}) {
    const Case& c = r.c;
    const Queue& q = provider_queue(0);
    const int64_t W = int64_t(c.heads) * c.dim, rows = c.tokens * c.batch;
    const auto qkv = inputs(c, seed++);
    const auto cos = normal_bf16(size_t(r.positions * r.rot), seed++, 0.7);
    const auto sin = normal_bf16(size_t(r.positions * r.rot), seed++, 0.7);
    DeviceArray ib(q, DType::BF16, {rows, 3 * W}), fused(q, DType::BF16, {rows, W});
    DeviceArray cb(q, DType::BF16, {r.positions, r.rot}), sb(q, DType::BF16, {r.positions, r.rot});
    cb.upload(cos);
    sb.upload(sin);
    ib.upload(qkv);
    fused.poison();
    ops::self_attention(q, ib, c.heads, int(c.batch), scale_of(c), fused, cb, sb);
    EXPECT_EQ(bits(ib.download<bf16>()), bits(qkv)) << "the rotary form leaves qkv as it was";
    const auto rotated = rope_reference(qkv, {3 * W, 2 * c.heads, c.dim, c.batch, 0, r.rot}, cos, sin);
    EXPECT_EQ(bits(fused.download<bf16>()), bits(run(q, rotated, c)))
        << provider_name() << " S=" << c.tokens << " D=" << c.dim << " R=" << r.rot;
    EXPECT_NE(bits(fused.download<bf16>()), bits(run(q, qkv, c))) << "the tables are used";

    DeviceArray scratch_out(q, DType::BF16, {rows, W});
    scratch_out.poison();
    ops::self_attention(q, ib, c.heads, int(c.batch), scale_of(c), scratch_out, cb, sb, ops::QkvAfter::scratch);
    EXPECT_EQ(bits(scratch_out.download<bf16>()), bits(fused.download<bf16>()))
        << provider_name() << " scratch S=" << c.tokens << " D=" << c.dim << " R=" << r.rot;
    const auto after = ib.download<bf16>();
    size_t neither = 0;
    for (size_t i = 0; i < after.size(); ++i)
      neither += after[i].bits != qkv[i].bits && after[i].bits != rotated[i].bits;  // rotated's v is qkv's
    EXPECT_EQ(neither, 0u) << "with QkvAfter::scratch each q|k element is its input or its rotation, v its input";
  }
}

TEST(SelfAttention, BitsDoNotDependOnThreadsOrMatchTheCpuProvider) {
  const Case c{300, 2, 2, 64};
  const auto qkv = inputs(c, 31);
  const auto one = run(cpu_queue(1), qkv, c);
  if (!provider_is_cuda()) {
    EXPECT_EQ(bits(run(cpu_queue(2), qkv, c)), bits(one));
    return;
  }
  expect_band(run(provider_queue(0), qkv, c), one, "vs CPU provider");
}

}  // namespace
}  // namespace music3::optest
