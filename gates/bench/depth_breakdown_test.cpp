// depth-step-breakdown's accounting (bench/depth/depth_op_costs.h through bench/support/step_breakdown.h), on the
// depth device arm over the CPU providers, at the tiny geometry with its intermediate width set to 3H / 2 so that, as at
// the release geometry, qkv and gate_up share a shape (and the last hidden's projection and wo share [H, H] at two
// rows): every op of a frame lands in its named row with the count the arm issues per frame (so the buffer rule
// tells the roles apart), on a CPU provider, the GEMM rows with 2 M N K FLOPs; with --marginal every row has its
// marginal cost.
#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "bench/depth/depth_op_costs.h"
#include "bench/support/step_breakdown.h"
#include "engine/models/music3/depth/depth_engine.h"
#include "engine/models/music3/depth/depth_synthetic.h"

namespace music3::bench {
namespace {

TEST(DepthBreakdown, EveryOpOfAFrameInItsRowWhenRolesShareAShape) {
  depth::DepthConfig cfg = depth::DepthConfig::named("tiny");
  cfg.intermediate = 3 * cfg.hidden / 2;  // gate_up [2I, H] = qkv [3H, H]
  const size_t H = size_t(cfg.hidden);
  std::vector<bf16> last_hidden(2 * H), c0(H);
  depth::synthetic_frame_inputs(cfg, 0, 0, last_hidden.data(), c0.data());
  auto labels = std::make_shared<DepthOpLabels>(cfg);
  const StepOn make_step = [&](const Queue& on) -> std::function<void()> {
    labels->forget_buffers();
    auto engine =
        std::make_shared<depth::DepthEngine>(depth::synthetic_depth_weights(cfg, 0), on, depth::ArmRequest::Device);
    return [&, engine] {
      depth::FrameInputs in;
      in.last_hidden = last_hidden.data();
      in.c0_embedding = c0.data();
      engine->run_frame(in);
    };
  };
  constexpr int kFrames = 2;
  const StepBreakdown m = measure_step(cpu_queue(1), make_step, depth_op_labeler(labels), kFrames,
                                       "depth_breakdown_test", /*marginal=*/true);
  const int64_t S = cfg.steps(), L = cfg.layers;
  // Call 1 runs two positions (two position adds), the others one; each call's layers add twice. The draws of the
  // frame's S steps are one [S, V] call.
  const std::map<std::string, int64_t> want = {
      {"exp_draws", 1},           {"matmul_bt projection (last hidden)", 1}, {"matmul_bt projection (c0, codes)", S},
      {"add_rms_norm", (S + 1) + 2 * L * S}, {"matmul_bt qkv", L * S},   {"kv_append_attention", L * S},
      {"matmul_bt wo", L * S},    {"matmul_bt gate_up", L * S},              {"silu_and_mul", L * S},
      {"matmul_bt down", L * S},  {"matmul_bt head", S},                     {"cfg_topk_sample", S},
      {"embedding_gather", S - 1}};
  ASSERT_EQ(m.steps, kFrames);
  std::map<std::string, int64_t> got;
  for (const OpRow& row : m.rows) {
    got[row.label] = row.calls / kFrames;
    EXPECT_EQ(row.calls % kFrames, 0) << row.label;
    EXPECT_EQ(row.provider.rfind("cpu.", 0), 0u) << row.label << " ran on " << row.provider;
    if (row.label == "matmul_bt gate_up") {  // two rows per call after the first, four in the first
      EXPECT_DOUBLE_EQ(row.flops, kFrames * L * (4.0 + 2.0 * (S - 1)) * 2 * (2.0 * cfg.intermediate) * cfg.hidden);
    }
  }
  EXPECT_EQ(got, want);
  EXPECT_EQ(m.marginal_s.size(), m.rows.size());
}

}  // namespace
}  // namespace music3::bench
