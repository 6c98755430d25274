// kv_append gate: exact copies of the q, k and v thirds of a fused projection into
// q_out and row `pos` of each cache, with every other cache row left untouched.
#include <gtest/gtest.h>

#include "engine/ops/ops.h"
#include "gates/ops/support/numerics.h"
#include "gates/ops/support/provider_under_test.h"
#include "engine/core/device_array.h"

namespace music3::optest {
namespace {

struct Result {
  std::vector<bf16> q, k, v;
};

Result append(const Queue& q, const std::vector<bf16>& qkv, const std::vector<bf16>& k0, const std::vector<bf16>& v0,
              int64_t batch, int64_t tmax, int64_t width, int pos) {
  DeviceArray qkvb(q, DType::BF16, {batch, 3 * width}), qb(q, DType::BF16, {batch, width});
  DeviceArray kb(q, DType::BF16, {batch, tmax, width}), vb(q, DType::BF16, {batch, tmax, width});
  qkvb.upload(qkv);
  qb.poison();
  kb.upload(k0);
  vb.upload(v0);
  ops::kv_append(q, qkvb, qb, kb, vb, pos);
  return {qb.download<bf16>(), kb.download<bf16>(), vb.download<bf16>()};
}

TEST(KvAppend, CopiesTheThirdsAndOnlyRowPos) {
  const int64_t batch = 2, tmax = 8, width = 4096;
  const auto qkv = normal_bf16(batch * 3 * width, 1, 1.0);
  const auto k0 = normal_bf16(batch * tmax * width, 2, 1.0), v0 = normal_bf16(batch * tmax * width, 3, 1.0);
  for (int pos : {0, 3, 7}) {
    const Result r = append(provider_queue(0), qkv, k0, v0, batch, tmax, width, pos);
    auto want_q = std::vector<bf16>(), want_k = k0, want_v = v0;
    for (int64_t b = 0; b < batch; ++b) {
      const auto src = qkv.begin() + b * 3 * width;
      want_q.insert(want_q.end(), src, src + width);
      std::copy(src + width, src + 2 * width, want_k.begin() + (b * tmax + pos) * width);
      std::copy(src + 2 * width, src + 3 * width, want_v.begin() + (b * tmax + pos) * width);
    }
    EXPECT_EQ(bits(r.q), bits(want_q)) << provider_name() << " pos " << pos;
    EXPECT_EQ(bits(r.k), bits(want_k)) << provider_name() << " pos " << pos;
    EXPECT_EQ(bits(r.v), bits(want_v)) << provider_name() << " pos " << pos;
  }
}

TEST(KvAppend, BitsDoNotDependOnThreads) {
  if (provider_is_cuda()) GTEST_SKIP() << "CPU thread invariance (CUDA is held to exact copies above)";
  const int64_t batch = 5, tmax = 3, width = 100;
  const auto qkv = normal_bf16(batch * 3 * width, 4, 1.0);
  const auto k0 = normal_bf16(batch * tmax * width, 5, 1.0), v0 = normal_bf16(batch * tmax * width, 6, 1.0);
  const Result one = append(cpu_queue(1), qkv, k0, v0, batch, tmax, width, 2);
  const Result two = append(cpu_queue(2), qkv, k0, v0, batch, tmax, width, 2);
  EXPECT_EQ(bits(two.q), bits(one.q));
  EXPECT_EQ(bits(two.k), bits(one.k));
  EXPECT_EQ(bits(two.v), bits(one.v));
}

}  // namespace
}  // namespace music3::optest
