// Gate lm.parity: the AR stage against upstream's MiniMaxMusic3AutoregressiveStep
// (pinned transformers Qwen3ForCausalLM + diffusers), teacher forced with upstream's
// tokens and codes and replaying its recorded draws, on every geometry and seed:
//  - the LM: the prefill's final hidden (both rows, every position), the last hidden
//    before every iteration (prefill, then one decode step per fed-back frame), the
//    sliced lm_head logits, and the feedback embeddings (ULP statistics, lm_bounds.h);
//  - the loop: frame_hiddens within the band, the number of iterations, frames and the
//    EOS outcome equal to upstream's, every sampled token and code equal to upstream's up
//    to a shared near-tie.
#include <gtest/gtest.h>

#include "engine/models/music3/lm/lm_ids.h"
#include "gates/lib/code_agreement.h"
#include "gates/lib/gate_env.h"
#include "gates/lib/gate_record.h"
#include "gates/lib/near_tie.h"
#include "gates/lm/lm_bounds.h"
#include "gates/lm/lm_runs.h"

namespace music3::gates {
namespace {

constexpr int K = lm::kSampledColumns;

int column_of(int32_t id) { return id == lm::kAudioEndId ? 0 : id - lm::kCodeOffset + 1; }

TEST(LmParity, TeacherForcedAgainstUpstream) {
  for (const auto& c : lm_cases()) {
    SCOPED_TRACE(c.name());
    const LmGolden g = read_lm_golden(c);
    const LmRun run = run_lm_case(c, g, cpu_queue(), {});
    const auto& r = run.result;
    const auto& t = run.trace;
    EXPECT_EQ(r.iterations, g.iterations);
    EXPECT_EQ(r.frames, g.frames);
    EXPECT_EQ(r.eos, g.eos);
    EXPECT_EQ(r.nonfinite_logits, 0u);
    ASSERT_EQ(t.last_hidden.size(), g.last_hidden.size());
    ASSERT_EQ(t.feedback.size(), g.feedback.size());
    ASSERT_EQ(r.frame_hiddens.size(), g.frame_hiddens.size());
    const size_t H = size_t(g.hidden);
    check_ulp_cfg("lm.parity", c.name(), "prefill_hidden.ulp", t.prefill_hidden, g.prefill_hidden,
                  size_t(g.prompt) * H, lm_bounds::kHidden);
    check_ulp_cfg("lm.parity", c.name(), "last_hidden.ulp", t.last_hidden, g.last_hidden, H, lm_bounds::kHidden);
    check_ulp_cfg("lm.parity", c.name(), "logits.ulp", t.lm_logits, g.lm_logits, K, lm_bounds::kLogits);
    check_ulp_cfg("lm.parity", c.name(), "feedback.ulp", t.feedback, g.feedback, H, lm_bounds::kFeedback);
    check_ulp("lm.parity", c.name(), "frame_hiddens.ulp", ulp_stats(r.frame_hiddens, g.frame_hiddens),
              lm_bounds::kHidden);
    // Tokens: each iteration's sampled token against upstream's, on each side's guided logits.
    int defects = 0, near_ties = 0;
    for (int64_t it = 0; it < g.iterations; ++it) {
      const int32_t mine = r.tokens[size_t(it)], ref = g.tokens[size_t(it)];
      if (mine == ref) continue;
      const std::vector<float> draws = g.sliced_draws(it);
      if (shared_near_tie(t.guided.data() + it * K, g.guided.data() + it * K, draws.data(), column_of(mine),
                          column_of(ref)))
        ++near_ties;
      else
        ADD_FAILURE() << "iteration " << it << ": token " << mine << " vs upstream " << ref
                      << " is not a shared near-tie", ++defects;
    }
    record("lm.parity", c.name(), "tokens.defects", defects, 0);
    record("lm.parity", c.name(), "tokens.near_ties", near_ties, 0, BoundKind::ReportOnly);
    // Codes c1..c7 (teacher forced: every depth call saw upstream's inputs), by the near-tie rule.
    std::vector<int32_t> mine, ref;
    for (int64_t d = 0; d < g.depth_frames; ++d)
      for (int k = 1; k < 8; ++k) {
        mine.push_back(r.codes[size_t(d * 8 + k)]);
        ref.push_back(g.codes[size_t(d * 8 + k)]);
      }
    ASSERT_EQ(t.depth_guided.size(), g.depth_guided.size());
    const CodeAgreement codes = compare_codes(mine.data(), t.depth_guided.data(), ref.data(), g.depth_guided.data(),
                                              g.depth_exp_draws.data(), g.depth_frames, 7, int(g.audio_vocab));
    for (const auto& defect : codes.defects_found) ADD_FAILURE() << "depth " << defect;
    record("lm.parity", c.name(), "codes.defects", codes.defects, 0);
    record("lm.parity", c.name(), "codes.near_ties", codes.near_ties, 0, BoundKind::ReportOnly);
  }
}

}  // namespace
}  // namespace music3::gates

int main(int argc, char** argv) { return music3::gates::gate_main(argc, argv); }
