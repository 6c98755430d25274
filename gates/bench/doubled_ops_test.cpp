// The step-breakdown tools' doubled ops (bench/support/doubled_ops.h), on a CPU queue: while installed, a call whose
// label matches runs twice (an in-place add adds twice) and is counted, a call of another label runs once, and once
// removed nothing is doubled (lm_breakdown_test holds the marginal column built on it).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "bench/support/doubled_ops.h"
#include "engine/core/bf16.h"
#include "engine/core/device_array.h"
#include "engine/ops/ops.h"

namespace music3::bench {
namespace {

OpCost by_name(ops::OpId op, const void*) { return {ops::op_name(op), 0, 0}; }

// x += r on q, bf16 (small integers: every sum here is exact).
std::vector<float> add_in_place(const Queue& q, const std::vector<float>& x, const std::vector<float>& r) {
  const int64_t n = int64_t(x.size());
  DeviceArray xb(q, DType::BF16, {1, n}), rb(q, DType::BF16, {1, n});
  std::vector<bf16> xh, rh;
  for (int64_t i = 0; i < n; ++i) xh.push_back(to_bf16(x[size_t(i)])), rh.push_back(to_bf16(r[size_t(i)]));
  xb.upload(xh);
  rb.upload(rh);
  ops::add(q, xb, rb, xb);
  std::vector<float> out;
  for (bf16 v : xb.download<bf16>()) out.push_back(to_f32(v));
  return out;
}

TEST(DoubledOps, AMatchingCallRunsTwiceAndOthersOnce) {
  const Queue q = cpu_queue(1);
  const std::vector<float> x = {1, 2, 3}, r = {10, 20, 30};
  {
    DoubledOps doubled(by_name, ops::op_name(ops::OpId::Add));
    EXPECT_EQ(add_in_place(q, x, r), (std::vector<float>{21, 42, 63}));
    EXPECT_EQ(doubled.doubled(), 1);
  }
  {
    DoubledOps doubled(by_name, "rms_norm");
    EXPECT_EQ(add_in_place(q, x, r), (std::vector<float>{11, 22, 33}));
    EXPECT_EQ(doubled.doubled(), 0);
  }
  EXPECT_EQ(add_in_place(q, x, r), (std::vector<float>{11, 22, 33}));  // removed with its owner
}

}  // namespace
}  // namespace music3::bench
