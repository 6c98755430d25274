// The step-breakdown tools' doubled ops (bench/support/doubled_ops.h), on a CPU queue: while installed, a call whose
// label matches runs twice (an in-place add adds twice) and is counted, a call of another label runs once, and once
// removed nothing is doubled; and lm-step-breakdown's measurement with marginal costs (step_breakdown.h) gives one
// marginal per row, printed in the table and the JSON, beside the plain step measured again.
#include <gtest/gtest.h>

#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include "bench/lm/lm_bench_weights.h"
#include "bench/lm/lm_op_costs.h"
#include "bench/support/doubled_ops.h"
#include "bench/support/step_breakdown.h"
#include "bench/support/uniform_bf16.h"
#include "engine/core/device_array.h"
#include "engine/models/music3/lm/lm_ids.h"
#include "engine/models/music3/lm/lm_selector.h"
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

TEST(DoubledOps, TheLmBreakdownGivesEveryRowAMarginalCost) {
  const lm::LmConfig cfg = lm_bench_geometry("small");
  const lm::LmWeights w = synthetic_lm_weights(cfg, 0);
  const size_t H = size_t(cfg.hidden);
  constexpr int kKv = 8, kSteps = 1;
  const auto prompt = uniform_bf16(2 * kKv * H, 10);
  const StepOn make_step = [&](const Queue& on) -> std::function<void()> {
    struct S {
      runtime::ArmInstruments ins;
      std::unique_ptr<lm::LmArm> arm;
      std::vector<bf16> embeds, last, logits;
    };
    auto s = std::make_shared<S>();
    lm::select_lm_arm(on, runtime::ArmRequest::Device, w, s->ins, &s->arm);
    s->embeds = uniform_bf16(2 * H, 11);
    s->last.resize(2 * H);
    s->logits.resize(2 * size_t(lm::kSampledColumns));
    s->arm->prefill(prompt.data(), kKv, kKv + 2 * kSteps + 4, s->last.data(), nullptr);
    return [s] {
      s->arm->decode(s->embeds.data(), s->last.data());
      s->arm->head(s->last.data(), s->logits.data());
    };
  };
  const StepBreakdown m =
      measure_step(cpu_queue(1), make_step, lm_op_labeler(cfg, kKv), kSteps, "doubled_ops_test", /*marginal=*/true);
  ASSERT_EQ(m.marginal_s.size(), m.rows.size());
  EXPECT_GT(m.again_s, 0.0);
  std::ostringstream table;
  print_step_table(table, m, "lm-step-breakdown", "small");
  EXPECT_NE(table.str().find("marginal: each row's calls doubled"), std::string::npos) << table.str();
  const auto json = step_json(m, "small");
  for (const auto& row : json["ops"]) {
    EXPECT_TRUE(row.contains("marginal_ms_per_step")) << row.dump();
    EXPECT_TRUE(row.contains("marginal_us_per_call")) << row.dump();
  }
  EXPECT_TRUE(json.contains("plain_again_ms"));
}

}  // namespace
}  // namespace music3::bench
