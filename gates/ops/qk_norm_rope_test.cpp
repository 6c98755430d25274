// qk_norm_rope gate: the fused op against the three calls it replaces on the provider under test
// (head_rms_norm of the q heads with q_norm, of the k heads with k_norm, then rope of both), bit for bit,
// 6 seeds x 3 geometries (Qwen3's 32 q + 8 k heads of 128 at two rows; an odd head count with T = 3 tokens;
// partial rotary, the table narrower than the head); the v heads untouched; refusals named.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

#include "engine/core/device_array.h"
#include "engine/ops/lm_ops.h"
#include "gates/ops/support/numerics.h"
#include "gates/ops/support/provider_under_test.h"

namespace music3::optest {
namespace {

struct Case {
  int64_t tokens, batch, heads, kv_heads, dim, rot, positions;
  int pos0;
  int64_t width() const { return (heads + 2 * kv_heads) * dim; }
};

// The op's inputs on the provider's device, drawn from `seed`.
struct Buffers {
  Buffers(const Queue& q, const Case& c, uint64_t seed)
      : x(q, DType::BF16, {c.tokens * c.batch, c.width()}),
        q_norm(q, DType::BF16, {c.dim}),
        k_norm(q, DType::BF16, {c.dim}),
        cos(q, DType::BF16, {c.positions, c.rot}),
        sin(q, DType::BF16, {c.positions, c.rot}),
        pos(q, DType::I32, {1}) {
    x.upload(normal_bf16(size_t(c.tokens * c.batch * c.width()), seed, 2.0));
    std::vector<bf16> qn = normal_bf16(size_t(c.dim), seed + 1, 0.3), kn = normal_bf16(size_t(c.dim), seed + 2, 0.3);
    for (auto& v : qn) v = to_bf16(to_f32(v) + 1.0f);
    for (auto& v : kn) v = to_bf16(to_f32(v) + 1.0f);
    q_norm.upload(qn);
    k_norm.upload(kn);
    cos.upload(normal_bf16(size_t(c.positions * c.rot), seed + 3, 0.7));
    sin.upload(normal_bf16(size_t(c.positions * c.rot), seed + 4, 0.7));
    pos.upload(std::vector<int32_t>{c.pos0});
  }
  DeviceArray x, q_norm, k_norm, cos, sin, pos;
};

ops::QkNormRopeArgs fused_args(Buffers& b, const Case& c) {
  return {b.x, b.q_norm, b.k_norm, b.cos, b.sin, b.pos, int(c.heads), int(c.kv_heads), int(c.batch), 1e-6f};
}

TEST(QkNormRope, EqualsHeadNormsThenRopeBitForBit) {
  const Case cases[] = {{1, 2, 32, 8, 128, 128, 40, 17}, {3, 2, 3, 1, 64, 64, 12, 7}, {2, 2, 4, 2, 64, 32, 9, 3}};
  for (const Case& c : cases)
    for (uint64_t seed = 1; seed <= 6; ++seed) {
      const Queue q = provider_queue(0);
      Buffers fused(q, c, seed), apart(q, c, seed);
      const auto input = fused.x.download<bf16>();
      ops::qk_norm_rope(q, fused_args(fused, c));
      ops::head_rms_norm(q, apart.x, apart.q_norm, 0, int(c.heads), 1e-6f);
      ops::head_rms_norm(q, apart.x, apart.k_norm, int(c.heads), int(c.kv_heads), 1e-6f);
      ops::rope(q, apart.x, apart.cos, apart.sin, apart.pos, int(c.heads + c.kv_heads), int(c.batch), int(c.dim));
      const auto got = fused.x.download<bf16>(), want = apart.x.download<bf16>();
      const std::string what = provider_name() + " heads " + std::to_string(c.heads) + "+" +
                               std::to_string(c.kv_heads) + " D " + std::to_string(c.dim) + " rot " +
                               std::to_string(c.rot) + " seed " + std::to_string(seed);
      ASSERT_EQ(bits(got), bits(want)) << what;
      size_t changed = 0;
      for (int64_t r = 0; r < c.tokens * c.batch; ++r)
        for (int64_t i = 0; i < c.width(); ++i) {
          const size_t at = size_t(r * c.width() + i);
          if (i >= (c.heads + c.kv_heads) * c.dim)
            ASSERT_EQ(got[at].bits, input[at].bits) << what << ": a v head touched";
          else
            changed += got[at].bits != input[at].bits;
        }
      EXPECT_GT(changed, size_t((c.heads + c.kv_heads) * c.dim * c.tokens * c.batch) / 2) << what;
    }
}

TEST(QkNormRope, RefusesMismatchedNormsAndHeadsByName) {
  const Queue q = provider_queue(0);
  const Case c{1, 2, 4, 2, 64, 64, 8, 0};
  Buffers b(q, c, 9);
  DeviceArray narrow(q, DType::BF16, {32});
  auto expect_refused = [&](ops::QkNormRopeArgs a, const std::string& name) {
    try {
      ops::qk_norm_rope(q, a);
      ADD_FAILURE() << "accepted a bad '" << name << "'";
    } catch (const std::invalid_argument& e) {
      const std::string m = e.what();
      EXPECT_NE(m.find("qk_norm_rope"), std::string::npos) << m;
      EXPECT_NE(m.find(name), std::string::npos) << m;
    }
  };
  ops::QkNormRopeArgs a = fused_args(b, c);
  a.k_norm = narrow;
  expect_refused(a, "k_norm");
  a = fused_args(b, c);
  a.kv_heads = 5;  // 4 + 5 heads of 64 past the q and k heads of a 512-wide row
  expect_refused(a, "kv_heads");
  a = fused_args(b, c);
  a.batch = 3;
  expect_refused(a, "batch");
}

}  // namespace
}  // namespace music3::optest
