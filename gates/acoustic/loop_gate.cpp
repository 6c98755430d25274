// Gate acoustic.loop: the window loop teacher-forced against upstream's MiniMaxMusic3CoreDenoiseStep (1, 2 and 3
// windows, a ragged last window, N = 30, 4, 3, 2; 6 seeds each). Replaying arms return upstream's recorded encoder
// and DiT outputs and compare every input the loop gives them with upstream's (frames, x after the overlap
// re-noising, the bf16 timestep, the spliced condition); the recorded noise is injected. Checked per case: the
// window starts and latent lengths, 2N DiT evaluations and one encoder call per window, zero differing inputs and
// zero differing final latents (bounds in loop_bounds.h).
#include <gtest/gtest.h>

#include <cstdio>

#include "engine/models/music3/acoustic/acoustic_stage.h"
#include "gates/acoustic/loop_bounds.h"
#include "gates/acoustic/loop_oracle.h"
#include "gates/acoustic/loop_replay_arms.h"
#include "gates/lib/gate_env.h"
#include "gates/lib/gate_record.h"
#include "gates/lib/ulp_stats.h"

namespace music3::gates {
namespace {

TEST(AcousticLoop, TeacherForcedMatchesUpstream) {
  const auto cases = loop_cases();
  ASSERT_GE(cases.size(), 18u);
  int max_windows = 0;
  for (const LoopCase& c : cases) {
    const LoopGolden g = load_loop_golden(c);
    std::vector<std::vector<bf16>> noise;
    for (const auto& w : g.windows) noise.push_back(w.noise);
    ReplayConditionEncoder encoder(g);
    ReplayDit dit(g);
    acoustic::AcousticOptions opts;
    opts.steps = g.steps;
    const auto r = acoustic::run_acoustic(encoder, dit, g.frame_hiddens.data(), g.frames, g.frame_width,
                                          acoustic::NoiseSource::recorded(noise), opts);
    const std::string name = c.name();
    ASSERT_EQ(r.windows.size(), g.windows.size()) << name << ": window count";
    max_windows = std::max(max_windows, int(r.windows.size()));
    EXPECT_EQ(encoder.forwards(), int64_t(g.windows.size())) << name;
    EXPECT_EQ(dit.forwards(), 2 * g.steps * int64_t(g.windows.size())) << name << ": 2N DiT evaluations per window";
    int64_t latents = 0;
    for (size_t k = 0; k < g.windows.size(); ++k) {
      EXPECT_EQ(r.windows[k].start, g.windows[k].start) << name << " window " << k;
      EXPECT_EQ(r.windows[k].length, g.windows[k].length) << name << " window " << k;
      latents += differing_bits(r.windows[k].latents, g.windows[k].latents);
    }
    const int64_t inputs = encoder.frames_mismatch().elements + dit.x_mismatch().elements +
                           dit.t_mismatch().elements + dit.cond_mismatch().elements;
    const int64_t shapes = encoder.frames_mismatch().shape_errors + dit.x_mismatch().shape_errors;
    std::printf("[loop] %s: windows %zu, differing inputs %lld (x %lld max %.0f ulp, t %lld, cond %lld, frames %lld), "
                "shape errors %lld, differing latents %lld\n",
                name.c_str(), g.windows.size(), (long long)inputs, (long long)dit.x_mismatch().elements,
                dit.x_mismatch().max_ulp, (long long)dit.t_mismatch().elements, (long long)dit.cond_mismatch().elements,
                (long long)encoder.frames_mismatch().elements, (long long)shapes, (long long)latents);
    record("acoustic.loop", name, "differing_inputs", double(inputs + shapes), double(loop_bounds::kInputMismatches));
    record("acoustic.loop", name, "differing_latents", double(latents), double(loop_bounds::kLatentMismatches));
    EXPECT_LE(inputs + shapes, loop_bounds::kInputMismatches) << name << ": DiT/encoder inputs differ from upstream's";
    EXPECT_LE(latents, loop_bounds::kLatentMismatches) << name << ": final latents differ from upstream's";
  }
  EXPECT_EQ(max_windows, 3) << "the oracle lost its three-window case";
}

}  // namespace
}  // namespace music3::gates

int main(int argc, char** argv) { return music3::gates::gate_main(argc, argv); }
