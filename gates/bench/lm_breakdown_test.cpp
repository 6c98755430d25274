// lm-step-breakdown's accounting (bench/lm/lm_op_costs.h through bench/support/step_breakdown.h's measure_step), on
// the LM device arm over the CPU providers at the small geometry: every op of a decode step plus the sliced head
// lands in its named row with the count the arm issues per step (so nothing is mislabelled or lost), the GEMM rows
// carry 2 M N K FLOPs, the attention row the K/V prefix's bytes, every row ran on a CPU provider with a positive
// time, the rows' sum fits inside the steps' span, and a CPU backend (no graphs) reports no replay time; the table
// and the JSON name every row; with --marginal, every row has its marginal cost.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <sstream>
#include <string>

#include "bench/lm/lm_bench_weights.h"
#include "bench/lm/lm_op_costs.h"
#include "bench/support/step_breakdown.h"
#include "bench/support/uniform_bf16.h"
#include "engine/models/music3/lm/lm_ids.h"
#include "engine/models/music3/lm/lm_selector.h"

namespace music3::bench {
namespace {

constexpr int kKv = 12, kSteps = 2;

// One decode step + sliced head of the small geometry's LM device arm on `on`, after a prefill of kKv positions.
StepOn lm_step_on(const lm::LmWeights& w, const std::vector<bf16>& prompt) {
  return [&w, &prompt](const Queue& on) -> std::function<void()> {
    struct S {
      runtime::ArmInstruments ins;
      std::unique_ptr<lm::LmArm> arm;
      std::vector<bf16> embeds, last, logits;
    };
    const size_t H = size_t(w.cfg.hidden);
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
}

TEST(LmBreakdown, EveryOpOfADecodeStepInItsRow) {
  const lm::LmConfig cfg = lm_bench_geometry("small");
  const lm::LmWeights w = synthetic_lm_weights(cfg, 0);
  const auto prompt = uniform_bf16(2 * kKv * size_t(cfg.hidden), 10);
  const Queue q = cpu_queue(1);
  const StepOn make_step = lm_step_on(w, prompt);
  const StepBreakdown m = measure_step(q, make_step, lm_op_labeler(cfg, kKv), kSteps, "lm_breakdown_test");
  const int64_t L = cfg.layers;
  const std::map<std::string, int64_t> want = {
      {"rms_norm", 1},         {"matmul_bt qkv", L},      {"qk_norm_rope", L},   {"gqa_attention", L},
      {"matmul_bt wo", L},     {"add_rms_norm", 2 * L},   {"matmul_bt gate_up", L}, {"silu_and_mul", L},
      {"matmul_bt down", L},   {"matmul_bt head (sliced)", 1}};
  ASSERT_EQ(m.steps, kSteps);
  std::map<std::string, int64_t> got;
  double sum = 0;
  for (const OpRow& row : m.rows) {
    got[row.label] = row.calls / kSteps;
    EXPECT_EQ(row.calls % kSteps, 0) << row.label;
    EXPECT_GT(row.seconds, 0.0) << row.label;
    EXPECT_GT(row.bytes, 0.0) << row.label;
    EXPECT_EQ(op_is_compute(row), row.label.rfind("matmul_bt", 0) == 0) << row.label;
    EXPECT_EQ(row.provider.rfind("cpu.", 0), 0u) << row.label << " ran on " << row.provider;
    sum += row.seconds;
  }
  EXPECT_EQ(got, want);
  EXPECT_LE(sum / kSteps, m.span_s);
  EXPECT_DOUBLE_EQ(m.ops_s, sum / kSteps);  // the ops' sum is per step, as every other figure of the table
  EXPECT_EQ(m.graph_s, 0.0);  // the CPU backend has no graphs
  for (const OpRow& row : m.rows) {
    if (row.label == "matmul_bt down") {
      EXPECT_DOUBLE_EQ(row.flops, kSteps * L * 2.0 * 2 * cfg.hidden * cfg.intermediate);
    }
    if (row.label == "gqa_attention") {  // at least the K and V prefix of both rows, every layer, every step
      EXPECT_GE(row.bytes, kSteps * L * 2.0 * 2 * kKv * cfg.kv_width() * 2);
    }
  }
  std::ostringstream table;
  print_step_table(table, m, "lm-step-breakdown", "small");
  const auto json = step_json(m, "small");
  ASSERT_EQ(json["ops"].size(), want.size());
  for (const auto& [label, calls] : want) EXPECT_NE(table.str().find(label), std::string::npos) << label;
}

// --marginal (step_breakdown.h's part 3): one marginal cost per row, in the table and the JSON, beside the plain step
// measured again (the values are host-clock differences on the CPU: only their presence is held).
TEST(LmBreakdown, MarginalCostsForEveryRow) {
  const lm::LmConfig cfg = lm_bench_geometry("small");
  const lm::LmWeights w = synthetic_lm_weights(cfg, 0);
  const auto prompt = uniform_bf16(2 * kKv * size_t(cfg.hidden), 10);
  const StepBreakdown m = measure_step(cpu_queue(1), lm_step_on(w, prompt), lm_op_labeler(cfg, kKv), 1,
                                       "lm_breakdown_test", /*marginal=*/true);
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
