// dit-step-breakdown's accounting (bench/acoustic/dit_op_costs.h over bench/support/op_timeline.h), on the DiT
// device arm over the CPU providers at the tiny geometry: every op of a guided step lands in its named row with
// the count the arm issues (so nothing is mislabelled or lost in the per-kind sums), the GEMM rows carry their
// FLOPs, each row's time is positive and the rows' sum fits inside the steps' span; a timeline leaves no observer
// behind after end_step() and counts nothing outside a step.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <string>

#include "bench/acoustic/dit_op_costs.h"
#include "bench/support/observed_backend.h"
#include "bench/support/op_timeline.h"
#include "engine/models/music3/acoustic/acoustic_selector.h"
#include "engine/models/music3/acoustic/acoustic_synthetic.h"
#include "engine/ops/ops.h"

namespace music3::bench {
namespace {

constexpr int64_t kLatents = 17;
constexpr int kSteps = 2;

TEST(DitBreakdown, EveryOpOfAStepInItsRow) {
  const auto w = acoustic::synthetic_dit_weights(acoustic::dit_geometry("tiny"), 0);
  const Queue q = cpu_queue(1);
  runtime::ArmInstruments ins;
  const auto arm = acoustic::make_dit_arm(w, q, runtime::ArmRequest::Device, ins);
  const auto x = acoustic::synthetic_normal(size_t(w.cfg.in_channels * kLatents), 1);
  const auto cond = acoustic::synthetic_normal(size_t(w.cfg.condition_dim * kLatents), 2);
  OpTimeline timeline(q, dit_op_labeler(w.cfg, kLatents));
  for (int i = 0; i < kSteps; ++i) {
    timeline.begin_step();
    arm->velocities(x.data(), kLatents, to_bf16(0.5f), cond.data());
    timeline.end_step();
  }
  const int64_t layers = w.cfg.layers;
  const std::map<std::string, int64_t> want = {
      {"pre place_rows", 4},          {"pre matmul_bt pre_conv", 1},
      {"pre add pre_conv residual", 1}, {"pre matmul_bt proj_in", 1},
      {"pre matmul_bt time linear_1", 1}, {"pre silu_and_mul time", 1},
      {"pre matmul_bt time linear_2", 1}, {"block layer_norm", 1},
      {"block matmul_bt qkv", layers},  {"block self_attention", layers},
      {"block matmul_bt wo", layers},   {"block add_layer_norm", 2 * layers - 1},
      {"block matmul_bt ff_in", layers}, {"block silu_and_mul ff", layers},
      {"block matmul_bt ff_out", layers}, {"block add residual (last block)", 1},
      {"post matmul_bt proj_out", 1},   {"post matmul_bt post_conv", 1},
      {"post add post_conv residual", 1}};
  ASSERT_EQ(timeline.steps(), kSteps);
  std::map<std::string, int64_t> got;
  double sum = 0;
  for (const OpRow& row : timeline.rows()) {
    got[row.label] = row.calls / kSteps;
    EXPECT_EQ(row.calls % kSteps, 0) << row.label;
    EXPECT_GT(row.seconds, 0.0) << row.label;
    EXPECT_GT(row.bytes, 0.0) << row.label;
    EXPECT_EQ(op_is_compute(row), row.label.find("matmul_bt") != std::string::npos ||
                                          row.label == "block self_attention")
        << row.label;
    EXPECT_EQ(row.provider.rfind("cpu.", 0), 0u) << row.label << " ran on " << row.provider;
    sum += row.seconds;
  }
  EXPECT_EQ(got, want);
  EXPECT_LE(sum, timeline.span_seconds());
  const auto& qkv = *std::find_if(timeline.rows().begin(), timeline.rows().end(),
                                  [](const OpRow& r) { return r.label == "block matmul_bt qkv"; });
  const double M = 2.0 * (kLatents + 1), D = w.cfg.inner();
  EXPECT_DOUBLE_EQ(qkv.flops, kSteps * layers * 2.0 * M * 3 * D * D);
}

TEST(DitBreakdown, OnlyInsideAStep) {
  const Queue q = cpu_queue(1);
  OpTimeline timeline(q, [](ops::OpId op, const void*) { return OpCost{ops::op_name(op), 0, 1}; });
  std::vector<bf16> a(8, to_bf16(1.0f)), b(8, to_bf16(2.0f)), out(8);
  const Tensor ta{a.data(), DType::BF16, Shape{2, 4}, DeviceType::CPU};
  const Tensor tb{b.data(), DType::BF16, Shape{2, 4}, DeviceType::CPU};
  const Tensor to{out.data(), DType::BF16, Shape{2, 4}, DeviceType::CPU};
  ops::add(q, ta, tb, to);  // before the step: not counted
  timeline.begin_step();
  EXPECT_THROW(timeline.begin_step(), std::logic_error);
  ops::add(q, ta, tb, to);
  timeline.end_step();
  ops::add(q, ta, tb, to);  // after: the observer is gone
  ASSERT_EQ(timeline.rows().size(), 1u);
  EXPECT_EQ(timeline.rows()[0].calls, 1);
  EXPECT_EQ(timeline.rows()[0].label, "add");
  EXPECT_THROW(timeline.end_step(), std::logic_error);
}

// The backend dit-step-breakdown wraps the device's in: graphs off on request, everything else the inner backend's
// (memory from one is the other's), and no replay time before a replay.
TEST(DitBreakdown, ObservedBackendForwardsAndCanTurnGraphsOff) {
  Backend& inner = *cpu_queue(1).backend;
  ObservedBackend eager(inner, /*graphs=*/false);
  EXPECT_FALSE(eager.supports_graphs());
  EXPECT_EQ(eager.type(), inner.type());
  EXPECT_EQ(eager.default_stream(), inner.default_stream());
  void* p = eager.alloc(64);
  const std::vector<uint8_t> src(64, 7);
  std::vector<uint8_t> back(64, 0);
  eager.copy(p, src.data(), 64, CopyKind::HostToDevice, nullptr);
  inner.copy(back.data(), p, 64, CopyKind::DeviceToHost, nullptr);
  EXPECT_EQ(back, src);
  inner.free(p);
  EXPECT_THROW((void)eager.take_graph_seconds(), std::logic_error);
}

}  // namespace
}  // namespace music3::bench
