// rope gate: the provider under test against the contract's three roundings computed
// independently (bit-exact on every provider: the arithmetic is a fixed sequence of
// round-to-nearest operations), rows at positions pos[0] + r / B read from the device,
// only heads [0, count) rotated, and positions past the table refused (CPU) or left
// untouched (CUDA).
#include <gtest/gtest.h>

#include <stdexcept>

#include "engine/core/device_array.h"
#include "engine/ops/lm_ops.h"
#include "gates/ops/support/numerics.h"
#include "gates/ops/support/provider_under_test.h"

namespace music3::optest {
namespace {

struct Case {
  int64_t tokens, batch, heads, dim, positions;
  int count, pos0;
};

std::vector<bf16> reference(std::vector<bf16> x, const std::vector<bf16>& cos, const std::vector<bf16>& sin,
                            const Case& c) {
  const int64_t width = c.heads * c.dim, half = c.dim / 2;
  for (int64_t r = 0; r < c.tokens * c.batch; ++r) {
    const int64_t p = c.pos0 + r / c.batch;
    for (int h = 0; h < c.count; ++h) {
      bf16* head = x.data() + r * width + h * c.dim;
      std::vector<float> in(size_t(c.dim));
      for (int64_t i = 0; i < c.dim; ++i) in[size_t(i)] = to_f32(head[i]);
      for (int64_t i = 0; i < c.dim; ++i) {
        const float partner = i < half ? -in[size_t(i + half)] : in[size_t(i - half)];
        const float a = round_bf16(in[size_t(i)] * to_f32(cos[size_t(p * c.dim + i)]));
        const float b = round_bf16(partner * to_f32(sin[size_t(p * c.dim + i)]));
        head[i] = to_bf16(a + b);
      }
    }
  }
  return x;
}

struct Inputs {
  std::vector<bf16> x, cos, sin;
};

Inputs make(const Case& c, uint64_t seed) {
  return {normal_bf16(size_t(c.tokens * c.batch * c.heads * c.dim), seed, 1.5),
          normal_bf16(size_t(c.positions * c.dim), seed + 1, 0.7),
          normal_bf16(size_t(c.positions * c.dim), seed + 2, 0.7)};
}

std::vector<bf16> run(const Queue& q, const Inputs& in, const Case& c) {
  DeviceArray xb(q, DType::BF16, {c.tokens * c.batch, c.heads * c.dim});
  DeviceArray cb(q, DType::BF16, {c.positions, c.dim}), sb(q, DType::BF16, {c.positions, c.dim});
  DeviceArray pb(q, DType::I32, {1});
  xb.upload(in.x);
  cb.upload(in.cos);
  sb.upload(in.sin);
  pb.upload(std::vector<int32_t>{c.pos0});
  ops::rope(q, xb, cb, sb, pb, c.count, int(c.batch));
  return xb.download<bf16>();
}

TEST(Rope, ExactAtModelShapeAndOddShapes) {
  const Case cases[] = {{1, 2, 48, 128, 300, 40, 297},  // a decode step: q and k heads of a fused qkv row
                        {9, 2, 48, 128, 16, 40, 0},     // a prefill from position 0
                        {5, 3, 7, 6, 12, 5, 4}};        // odd heads, tiny D
  uint64_t seed = 1;
  for (const Case& c : cases)
    for (int s = 0; s < 3; ++s, seed += 3) {
      const Inputs in = make(c, seed);
      EXPECT_EQ(bits(run(provider_queue(0), in, c)), bits(reference(in.x, in.cos, in.sin, c)))
          << provider_name() << " case D " << c.dim << " pos " << c.pos0 << " seed " << seed;
    }
}

TEST(Rope, PositionsPastTheTable) {
  const Case c{2, 2, 4, 8, 4, 4, 3};  // token 1 sits at position 4 of a 4-row table
  const Inputs in = make(c, 50);
  if (!provider_is_cuda()) {
    EXPECT_THROW(run(provider_queue(0), in, c), std::out_of_range);
    return;
  }
  const auto got = run(provider_queue(0), in, c);
  const int64_t width = c.heads * c.dim;
  const auto ref = reference(std::vector<bf16>(in.x.begin(), in.x.begin() + c.batch * width), in.cos, in.sin,
                             Case{1, c.batch, c.heads, c.dim, c.positions, c.count, c.pos0});
  for (int64_t i = 0; i < c.batch * width; ++i) EXPECT_EQ(got[size_t(i)].bits, ref[size_t(i)].bits) << i;
  for (int64_t i = c.batch * width; i < 2 * c.batch * width; ++i) EXPECT_EQ(got[size_t(i)].bits, in.x[size_t(i)].bits) << i;
}

TEST(Rope, BitsDoNotDependOnThreads) {
  if (provider_is_cuda()) GTEST_SKIP() << "CPU thread invariance (CUDA is held to exact bits above)";
  const Case c{7, 2, 10, 64, 20, 10, 5};
  const Inputs in = make(c, 99);
  EXPECT_EQ(bits(run(cpu_queue(1), in, c)), bits(run(cpu_queue(2), in, c)));
}

// Partial rotary (head_dim > D, the DiT's 32 of 64): every head's first D dims rotate as a full-width rope of
// those dims alone would, the rest pass through untouched, bit for bit.
TEST(Rope, PartialRotaryRotatesTheFirstDimsOfEachHead) {
  const Case c{9, 2, 6, 32, 12, 6, 0};  // D = 32 of heads 64 apart
  const int64_t stride = 64, rows = c.tokens * c.batch, wide = c.heads * stride;
  const Inputs in = make(c, 77);
  const auto full = normal_bf16(size_t(rows * wide), 78, 1.5);
  std::vector<bf16> compact(size_t(rows * c.heads * c.dim));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t h = 0; h < c.heads; ++h)
      for (int64_t i = 0; i < c.dim; ++i)
        compact[size_t((r * c.heads + h) * c.dim + i)] = full[size_t(r * wide + h * stride + i)];
  const Queue q = provider_queue(0);
  DeviceArray xb(q, DType::BF16, {rows, wide}), cb(q, DType::BF16, {c.positions, c.dim});
  DeviceArray sb(q, DType::BF16, {c.positions, c.dim}), pb(q, DType::I32, {1});
  xb.upload(full);
  cb.upload(in.cos);
  sb.upload(in.sin);
  pb.upload(std::vector<int32_t>{c.pos0});
  ops::rope(q, xb, cb, sb, pb, c.count, int(c.batch), int(stride));
  const auto got = xb.download<bf16>();
  const auto want = reference(compact, in.cos, in.sin, c);
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t h = 0; h < c.heads; ++h)
      for (int64_t i = 0; i < stride; ++i) {
        const size_t at = size_t(r * wide + h * stride + i);
        const uint16_t expect = i < c.dim ? want[size_t((r * c.heads + h) * c.dim + i)].bits : full[at].bits;
        ASSERT_EQ(got[at].bits, expect) << provider_name() << " row " << r << " head " << h << " dim " << i;
      }
}

}  // namespace
}  // namespace music3::optest
