// Gates depth.resident_dtypes and depth.pool: the device arm keeps every buffer its forward makes resident (weights,
// K/V cache, activations) in bf16 and nothing else, read from the instrument a real
// run emits, not restated here. A widened buffer (f32 activations or cache) turns
// it red even when every numeric gate stays green. Also: steady-state frames draw
// their K/V cache from the pool, so frame 2 onward costs no backend allocation.
#include <gtest/gtest.h>

#include "gates/depth/depth_runs.h"
#include "gates/lib/gate_env.h"
#include "gates/lib/gate_record.h"

namespace music3::gates {
namespace {

TEST(DepthResidency, DeviceForwardBuffersAreExactlyBf16) {
  for (const auto& c : oracle_cases()) {
    if (c.seed != 0) continue;  // residency is a property of the code, not the weights
    const auto cfg = load_case_weights(c).cfg;
    const auto g = read_golden(c, cfg);
    const CaseRun run = run_case(c, g, gate_queue(), {depth::ArmRequest::Device});
    ASSERT_EQ(run.arm, depth::ArmKind::Device);
    EXPECT_EQ(run.instruments.resident_dtypes, dtype_bit(DType::BF16))
        << c.name() << ": resident dtypes " << dtype_mask_names(run.instruments.resident_dtypes);
    record("depth.resident_dtypes", c.name(), "mask==BF16", run.instruments.resident_dtypes == dtype_bit(DType::BF16), 1,
           BoundKind::Lower);
  }
}

TEST(DepthResidency, SteadyStateFramesAllocateNothing) {
  const OracleCase c{"default", 0};
  depth::DepthEngine engine(load_case_weights(c), gate_queue(), depth::ArmRequest::Device);
  const auto g = read_golden(c, engine.config());
  const size_t H = size_t(engine.config().hidden);
  size_t after_first = 0;
  for (int64_t f = 0; f < g.frames; ++f) {
    depth::FrameInputs in;
    in.last_hidden = g.last_hidden.data() + size_t(f) * 2 * H;
    in.c0_embedding = g.c0_embedding.data() + size_t(f) * H;
    in.frame = uint64_t(f);
    engine.run_frame(in);
    if (f == 0) after_first = engine.instruments().pool_backend_allocs;
  }
  EXPECT_GT(after_first, 0u);
  EXPECT_EQ(engine.instruments().pool_backend_allocs, after_first) << "a frame after the first reached the backend";
  record("depth.pool", c.name(), "backend_allocs_after_frame1",
         double(engine.instruments().pool_backend_allocs - after_first), 0);
}

}  // namespace
}  // namespace music3::gates

int main(int argc, char** argv) { return music3::gates::gate_main(argc, argv); }
