// Gate acoustic.loop_real_arms: the whole window loop end to end on the real host arms (the condition encoder and
// the DiT loaded from the oracle's f32 checkpoints, run in bf16) against upstream's MiniMaxMusic3CoreDenoiseStep,
// with the recorded noise injected: every case of the loop oracle (1-3 windows, 6 seeds each). The arms' own
// rare rounding differences from torch compound over 2N DiT calls per window, so the final latents are bounded
// by ULP statistics (loop_bounds.h), not required bit-exact.
#include <gtest/gtest.h>

#include "engine/models/music3/acoustic/acoustic_stage.h"
#include "engine/models/music3/acoustic/condition_encoder_host_arm.h"
#include "engine/models/music3/acoustic/condition_encoder_loader.h"
#include "engine/models/music3/acoustic/dit_host_arm.h"
#include "engine/models/music3/acoustic/dit_loader.h"
#include "gates/acoustic/loop_bounds.h"
#include "gates/acoustic/loop_oracle.h"
#include "gates/lib/gate_env.h"
#include "gates/lib/gate_record.h"

namespace music3::gates {
namespace {

TEST(AcousticLoopRealArms, MatchesUpstreamEndToEnd) {
  const auto cases = loop_cases();
  ASSERT_GE(cases.size(), 18u);
  for (const LoopCase& c : cases) {
    const LoopGolden g = load_loop_golden(c);
    const std::string root = loop_checkpoint_root(c);
    const auto enc_w = acoustic::load_condition_encoder(root);
    const auto dit_w = acoustic::load_dit(root);
    ASSERT_EQ(enc_w.cfg.frame_width(), g.frame_width) << c.name();
    acoustic::ConditionEncoderHostArm encoder(enc_w, 1);
    acoustic::DitHostArm dit(dit_w, 1);
    std::vector<std::vector<bf16>> noise;
    for (const auto& w : g.windows) noise.push_back(w.noise);
    acoustic::AcousticOptions opts;
    opts.steps = g.steps;
    const auto r = acoustic::run_acoustic(encoder, dit, g.frame_hiddens.data(), g.frames, g.frame_width,
                                          acoustic::NoiseSource::recorded(noise), opts);
    ASSERT_EQ(r.windows.size(), g.windows.size()) << c.name();
    EXPECT_EQ(dit.forwards(), 2 * g.steps * int64_t(g.windows.size())) << c.name();
    std::vector<bf16> got, expected;
    for (size_t k = 0; k < g.windows.size(); ++k) {
      got.insert(got.end(), r.windows[k].latents.begin(), r.windows[k].latents.end());
      expected.insert(expected.end(), g.windows[k].latents.begin(), g.windows[k].latents.end());
    }
    const UlpStats s = ulp_stats(got, expected);
    EXPECT_EQ(s.nonfinite, 0u) << c.name();
    EXPECT_EQ(s.nonzero_refs + s.zero_refs, s.compared) << c.name();
    check_ulp("acoustic.loop_real_arms", c.name(), "latents", s, loop_bounds::kRealArmsVsOracle);
    const double exact = double(s.exact) / double(s.compared);
    record("acoustic.loop_real_arms", c.name(), "exact_fraction", exact, loop_bounds::kRealArmsMinExactFraction,
           BoundKind::Lower);
    EXPECT_GE(exact, loop_bounds::kRealArmsMinExactFraction) << c.name();
  }
}

}  // namespace
}  // namespace music3::gates

int main(int argc, char** argv) { return music3::gates::gate_main(argc, argv); }
