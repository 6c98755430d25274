// Gates depth.repeatable and depth.nonfinite_counter: the same forward run twice gives the same bits (a race, an unwritten
// buffer or a stale cache row shows up here first), and the non-finite counter
// sees a poisoned head instead of letting it pass as a code.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>

#include "gates/depth/depth_runs.h"
#include "gates/lib/gate_env.h"
#include "gates/lib/gate_record.h"

namespace music3::gates {
namespace {

void expect_repeatable(depth::ArmRequest req, const Queue& q, const OracleCase& c) {
  depth::DepthEngine engine(load_case_weights(c), q, req);
  const auto g = read_golden(c, engine.config());
  depth::FrameInputs in;
  in.last_hidden = g.last_hidden.data();
  in.c0_embedding = g.c0_embedding.data();
  in.draws.seed = 7;
  depth::FrameTrace t1, t2;
  const auto r1 = engine.run_frame(in, &t1);
  const auto r2 = engine.run_frame(in, &t2);
  const std::string what = c.name() + " " + depth::arm_name(engine.arm_kind());
  EXPECT_EQ(r1.codes, r2.codes) << what;
  const bool same = t1.final_hidden.size() == t2.final_hidden.size() &&
                    std::memcmp(t1.final_hidden.data(), t2.final_hidden.data(), t1.final_hidden.size() * 2) == 0 &&
                    std::memcmp(t1.head_logits.data(), t2.head_logits.data(), t1.head_logits.size() * 2) == 0 &&
                    std::memcmp(r1.hidden.data(), r2.hidden.data(), r1.hidden.size() * 2) == 0;
  EXPECT_TRUE(same) << what << ": two runs of one frame differ in their bits";
  record("depth.repeatable", what, "bit_identical", same && r1.codes == r2.codes, 1, BoundKind::Lower);
}

TEST(DepthRepeatability, SameFrameTwiceSameBits) {
  for (const OracleCase& c : {OracleCase{"default", 0}, OracleCase{"odd", 1}, OracleCase{"eighth", 2}}) {
    expect_repeatable(depth::ArmRequest::Host, cpu_queue(), c);
    expect_repeatable(depth::ArmRequest::Device, gate_queue(), c);
  }
}

size_t nonfinite_in(const std::vector<bf16>& logits) {
  size_t n = 0;
  for (bf16 v : logits) n += !std::isfinite(to_f32(v));
  return n;
}

// One poisoned head weight (head 3, row 5) makes logit 5 of call 3 non-finite in both CFG rows: the counter must
// hold exactly the non-finite logits of the frames run so far (2 per frame, also counted from the trace), so it
// counts each one once and starts every frame from zero.
TEST(DepthRepeatability, NonFiniteLogitsAreCountedExactlyPerFrame) {
  const OracleCase c{"default", 0};
  for (auto req : {depth::ArmRequest::Host, depth::ArmRequest::Device}) {
    auto w = load_case_weights(c);
    w.heads[3].mutable_ptr()[5 * size_t(w.cfg.hidden)] = to_bf16(INFINITY);
    depth::DepthEngine engine(std::move(w), req == depth::ArmRequest::Host ? cpu_queue() : gate_queue(), req);
    const std::string arm = depth::arm_name(engine.arm_kind());
    const auto g = read_golden(c, engine.config());
    depth::FrameInputs in;
    in.last_hidden = g.last_hidden.data();
    in.c0_embedding = g.c0_embedding.data();
    uint64_t expected = 0;
    for (int frame = 0; frame < 3; ++frame) {
      in.frame = uint64_t(frame);
      depth::FrameTrace t;
      engine.run_frame(in, &t);
      const size_t seen = nonfinite_in(t.head_logits);
      EXPECT_EQ(seen, 2u) << arm << " frame " << frame << ": one poisoned column, both rows";
      expected += seen;
      EXPECT_EQ(engine.instruments().nonfinite_logits, expected) << arm << " after frame " << frame;
    }
    record("depth.nonfinite_counter", arm, "counted", double(engine.instruments().nonfinite_logits), double(expected),
           BoundKind::Lower);
    record("depth.nonfinite_counter", arm, "counted_max", double(engine.instruments().nonfinite_logits),
           double(expected));
  }
}

}  // namespace
}  // namespace music3::gates

int main(int argc, char** argv) { return music3::gates::gate_main(argc, argv); }
