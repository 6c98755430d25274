// Gate lm.reachability and lm.repeat: the production call site (ArStage, which the CLI
// uses) reaches the selected arms, counted by what a real run emits, and runs repeat.
//  - the LM arm's forward counter equals 1 (prefill) + the decode steps the loop ran
//    (one per fed-back frame), the depth stage's frame counter equals the frames the loop
//    decoded, on every geometry (EOS runs included);
//  - two runs with the engine's own generator (no recording, no teacher) give identical
//    tokens, codes and frame_hiddens, on 1 and 2 threads; a different seed changes them;
//  - zero emitted frames are refused by name (an LM that samples <|audio_end|> first);
//  - max_frames = min(int(duration * 25), 9000), a duration below one frame refused by name.
#include <gtest/gtest.h>

#include <cstring>
#include <limits>

#include "engine/models/music3/lm/lm_ids.h"
#include "gates/lib/gate_env.h"
#include "gates/lib/gate_record.h"
#include "gates/lm/lm_runs.h"

namespace music3::gates {
namespace {

TEST(LmReachability, CountersMatchTheLoop) {
  for (const auto& c : lm_cases()) {
    if (c.seed > 1 && c.geometry != "eos") continue;
    const LmGolden g = read_lm_golden(c);
    const LmRun run = run_lm_case(c, g, cpu_queue(), {});
    const uint64_t decode_steps = run.trace.feedback.size() / (2 * size_t(g.hidden));
    EXPECT_EQ(run.lm_instruments.host_forwards, 1 + decode_steps) << c.name();
    EXPECT_EQ(run.lm_instruments.device_forwards, 0u) << c.name();
    EXPECT_EQ(run.depth_frames, uint64_t(g.depth_frames)) << c.name();
    EXPECT_EQ(decode_steps, uint64_t(g.feedback.size() / (2 * size_t(g.hidden)))) << c.name();
    record("lm.reachability", c.name(), "lm_forwards.host_forwards", double(run.lm_instruments.host_forwards),
           double(1 + decode_steps), BoundKind::Lower);
  }
}

TEST(LmRepeat, OwnGeneratorIsRepeatableAndThreadIndependent) {
  for (const auto& c : lm_cases()) {
    if (c.seed > 1) continue;
    const LmGolden g = read_lm_golden(c);
    const LmRunOptions own{runtime::ArmRequest::Auto, /*replay*/ false, /*teacher*/ false, 77 + uint64_t(c.seed)};
    const LmRun a = run_lm_case(c, g, cpu_queue(1), own);
    const LmRun b = run_lm_case(c, g, cpu_queue(2), own);
    LmRunOptions other = own;
    other.seed += 1000;
    const LmRun d = run_lm_case(c, g, cpu_queue(2), other);
    const bool same = a.result.tokens == b.result.tokens && a.result.codes == b.result.codes &&
                      a.result.frame_hiddens.size() == b.result.frame_hiddens.size() &&
                      std::memcmp(a.result.frame_hiddens.data(), b.result.frame_hiddens.data(),
                                  a.result.frame_hiddens.size() * sizeof(bf16)) == 0;
    EXPECT_TRUE(same) << c.name();
    EXPECT_NE(a.result.tokens, d.result.tokens) << c.name() << ": the seed does not reach the draws";
    record("lm.repeat", c.name(), "own_generator.identical", same, 1, BoundKind::Lower);
  }
}

TEST(LmRepeat, ZeroFramesAreRefusedByName) {
  // Iteration 0's draws rigged so that <|audio_end|> wins whenever it is a candidate.
  const LmCase c{"eos", 2};
  LmGolden g = read_lm_golden(c);
  const std::vector<int32_t> eos_first(size_t(g.iterations), lm::kAudioEndId);
  auto stage = make_stage(c, cpu_queue(), runtime::ArmRequest::Auto);
  ar::ArOptions o;
  o.max_frames = g.max_frames;
  const ar::ArTeacher teacher{eos_first.data(), g.iterations, g.codes.data(), g.depth_frames};
  o.teacher = &teacher;
  try {
    stage->run(g.text_ids.data(), int(g.prompt), o);
    ADD_FAILURE() << "zero frames accepted";
  } catch (const ar::ArError& e) {
    EXPECT_EQ(e.kind(), "zero_frames") << e.what();
  }
}

TEST(LmRepeat, DurationGivesUpstreamsFrameCountWithTheCap) {
  EXPECT_EQ(ar::max_frames_for(0.04), 1);
  EXPECT_EQ(ar::max_frames_for(0.12), 3);
  EXPECT_EQ(ar::max_frames_for(60.0), 1500);
  EXPECT_EQ(ar::max_frames_for(359.99), 8999);
  EXPECT_EQ(ar::max_frames_for(360.0), 9000);
  EXPECT_EQ(ar::max_frames_for(1e6), 9000);
  for (double bad : {0.0, 0.039, -1.0, std::numeric_limits<double>::infinity()}) {
    try {
      ar::max_frames_for(bad);
      ADD_FAILURE() << bad << " accepted";
    } catch (const ar::ArError& e) {
      EXPECT_EQ(e.kind(), "bad_duration");
    }
  }
}

}  // namespace
}  // namespace music3::gates

int main(int argc, char** argv) { return music3::gates::gate_main(argc, argv); }
