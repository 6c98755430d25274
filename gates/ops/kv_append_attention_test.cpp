// kv_append_attention gate: the fused op equals, token by token, kv_append at pos + t
// then attention_decode over pos + t + 1 on the same provider, bit for bit, in the
// output and in both caches (every row: the appended ones and the untouched ones), for
// one token (a decode step) and for two and three tokens (a later token attends an
// earlier one appended by the same call), at the model's head shape and a small one.
// Plus its argument refusals.
#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <string>

#include "engine/ops/ops.h"
#include "gates/lib/ulp_stats.h"
#include "gates/ops/support/numerics.h"
#include "gates/ops/support/provider_under_test.h"
#include "engine/core/device_array.h"

namespace music3::optest {
namespace {

struct Case {
  int64_t batch, tokens, tmax, heads, dim;
  int pos;
};

struct Outputs {
  std::vector<bf16> out, k, v;
};

Outputs run(const Queue& q, bool fused, const Case& c, const std::vector<bf16>& qkv, const std::vector<bf16>& k0,
            const std::vector<bf16>& v0) {
  const int64_t width = c.heads * c.dim, rows = c.tokens * c.batch;
  const float scale = 1.0f / std::sqrt(static_cast<float>(c.dim));
  DeviceArray qkvb(q, DType::BF16, {rows, 3 * width}), ob(q, DType::BF16, {rows, width});
  DeviceArray kb(q, DType::BF16, {c.batch, c.tmax, width}), vb(q, DType::BF16, {c.batch, c.tmax, width});
  DeviceArray query(q, DType::BF16, {c.batch, width});
  qkvb.upload(qkv);
  kb.upload(k0);
  vb.upload(v0);
  ob.poison();
  if (fused) {
    ops::kv_append_attention(q, qkvb, kb, vb, c.pos, static_cast<int>(c.heads), scale, ob);
  } else {
    for (int64_t t = 0; t < c.tokens; ++t) {
      Tensor qkv_t = qkvb.tensor(), out_t = ob.tensor();
      qkv_t.data = qkv_t.as<bf16>() + t * c.batch * 3 * width;
      qkv_t.shape = {c.batch, 3 * width};
      out_t.data = out_t.as<bf16>() + t * c.batch * width;
      out_t.shape = {c.batch, width};
      const int pos = c.pos + static_cast<int>(t);
      ops::kv_append(q, qkv_t, query, kb, vb, pos);
      ops::attention_decode(q, query, kb, vb, pos + 1, static_cast<int>(c.heads), scale, out_t);
    }
  }
  return {ob.download<bf16>(), kb.download<bf16>(), vb.download<bf16>()};
}

void expect_fused_equals_unfused(const Case& c, uint64_t seed) {
  const int64_t width = c.heads * c.dim;
  const auto qkv = normal_bf16(static_cast<size_t>(c.tokens * c.batch * 3 * width), seed, 1.0);
  const auto k0 = normal_bf16(static_cast<size_t>(c.batch * c.tmax * width), seed + 1, 1.0);
  const auto v0 = normal_bf16(static_cast<size_t>(c.batch * c.tmax * width), seed + 2, 1.0);
  const Queue q = provider_queue(0);
  const Outputs fused = run(q, true, c, qkv, k0, v0);
  const Outputs unfused = run(q, false, c, qkv, k0, v0);
  const std::string what = provider_name() + " B=" + std::to_string(c.batch) + " T=" + std::to_string(c.tokens) +
                           " heads=" + std::to_string(c.heads) + " D=" + std::to_string(c.dim) +
                           " pos=" + std::to_string(c.pos);
  EXPECT_EQ(bits(fused.out), bits(unfused.out)) << what;
  EXPECT_EQ(bits(fused.k), bits(unfused.k)) << what;
  EXPECT_EQ(bits(fused.v), bits(unfused.v)) << what;
  const gates::UlpStats s = gates::ulp_stats(fused.out, unfused.out);
  EXPECT_EQ(s.nonzero_refs + s.zero_refs, s.compared) << what << ": " << s.summary();  // all finite, both sides
}

TEST(KvAppendAttention, EqualsKvAppendThenAttentionAtTheModelShape) {
  expect_fused_equals_unfused({2, 2, 16, 16, 256, 0}, 1);  // the frame's first call: two tokens at 0, 1
  expect_fused_equals_unfused({2, 1, 16, 16, 256, 7}, 4);  // a decode step
  expect_fused_equals_unfused({2, 1, 16, 16, 256, 15}, 7);  // the last position
}

TEST(KvAppendAttention, EqualsKvAppendThenAttentionOnOtherShapes) {
  expect_fused_equals_unfused({3, 3, 9, 4, 40, 2}, 10);
  expect_fused_equals_unfused({1, 2, 5, 3, 33, 3}, 13);
  expect_fused_equals_unfused({2, 1, 4, 2, 300, 0}, 16);  // D above the block width
}

TEST(KvAppendAttention, RefusesBadArguments) {
  if (provider_is_cuda()) GTEST_SKIP() << "entry checks run before any provider (CPU test)";
  const Queue q = cpu_queue(1);
  DeviceArray qkv(q, DType::BF16, {4, 96}), odd_rows(q, DType::BF16, {3, 96}), out(q, DType::BF16, {4, 32});
  DeviceArray kc(q, DType::BF16, {2, 6, 32}), vc(q, DType::BF16, {2, 6, 32}), short_v(q, DType::BF16, {2, 5, 32});
  const auto refused = [](const std::function<void()>& call, const std::string& arg) {
    try {
      call();
      ADD_FAILURE() << "no refusal for argument '" << arg << "'";
    } catch (const std::invalid_argument& e) {
      const std::string want = "kv_append_attention: argument '" + arg + "'";
      EXPECT_EQ(std::string(e.what()).rfind(want, 0), 0u) << e.what();
    }
  };
  EXPECT_NO_THROW(ops::kv_append_attention(q, qkv, kc, vc, 4, 2, 0.25f, out));
  refused([&] { ops::kv_append_attention(q, odd_rows, kc, vc, 0, 2, 0.25f, out); }, "qkv");
  refused([&] { ops::kv_append_attention(q, qkv, kc, short_v, 0, 2, 0.25f, out); }, "v_cache");
  refused([&] { ops::kv_append_attention(q, qkv, kc, vc, 5, 2, 0.25f, out); }, "pos");  // two tokens from 5 pass Tmax 6
  refused([&] { ops::kv_append_attention(q, qkv, kc, vc, 0, 3, 0.25f, out); }, "heads");
  refused([&] { ops::kv_append_attention(q, qkv, kc, vc, 0, 2, NAN, out); }, "scale");
}

}  // namespace
}  // namespace music3::optest
