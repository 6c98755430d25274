// Gate pipeline.warm_up (--device cpu|cuda): the warm-up at load (engine/models/music3/pipeline/window_warm_up.h,
// ar_warm_up.h) changes no result, and `generate`'s selection and reachability on the gate's device. Two fresh
// loads of the embedded tiny pipeline, arms as `music3 generate` would build them there (auto on cuda: the device
// arms; on cpu, --arm device: the op seam's CPU providers, the arms that keep buffers, graphs and a cached condition
// between calls); one is warmed up first; both run the same free song (seed 7, 9 s, 2 steps: 225 frames, two
// windows, overlapped):
//   - the same tokens, codes, latents and audio, bit for bit;
//   - the warm-up reached each window stage's arm (its forwards() counter moved) and the LM's and the depth
//     stage's device arms (their device forwards moved);
//   - selection: every stage's arm is the device arm on the gate's device (describe_arms());
//   - reachability: during the song each stage's selected arm was called (the LM's and the depth stage's device
//     forwards, the condition encoder's, the DiT's and the vocoder's forwards counters moved).
// LeavesHostArmsAlone: with every stage on its host arm (on a CPU queue: the only one host arms run on) neither
// warm-up calls any of them.
#include <gtest/gtest.h>

#include "engine/core/queue.h"
#include "engine/models/music3/pipeline/ar_warm_up.h"
#include "engine/models/music3/pipeline/generate_run.h"
#include "engine/models/music3/pipeline/stage_arms.h"
#include "engine/models/music3/pipeline/window_warm_up.h"
#include "gates/lib/gate_env.h"
#include "gates/lib/gate_record.h"
#include "gates/pipeline/pipeline_oracle.h"
#include "gates/pipeline/same_song.h"

namespace music3::gates {
namespace {

std::string gate_id() { return "pipeline.warm_up_" + gate_device_name(); }

pipeline::StageArms generate_arms() {
  return pipeline::parse_stage_arms(gate_device() == DeviceType::CUDA ? "auto" : "device");
}

pipeline::GenerateResult song(bool warm_up, double* warm_up_seconds) {
  pipeline::PipelineModels models(embedded_pipeline_folder(), gate_queue(), generate_arms());
  for (const char* stage : {"lm", "depth", "condition_encoder", "dit", "vocoder"}) {
    EXPECT_EQ(models.describe_arms().at(stage).at("arm"), "device") << stage;
    EXPECT_EQ(models.describe_arms().at(stage).at("device"), gate_device_name()) << stage;
  }
  if (warm_up) {
    const int64_t encoder = models.encoder().forwards(), dit = models.dit().forwards();
    const int64_t vocoder = models.vocoder().forwards();
    *warm_up_seconds = pipeline::warm_up_windows(models);
    // Reachability: the warm-up called each window stage's selected arm.
    EXPECT_GT(models.encoder().forwards(), encoder) << "the warm-up never reached the condition encoder";
    EXPECT_GT(models.dit().forwards(), dit) << "the warm-up never reached the DiT";
    EXPECT_GT(models.vocoder().forwards(), vocoder) << "the warm-up never reached the vocoder";
    const uint64_t lm = models.ar().lm_instruments().device_forwards;
    const uint64_t depth = models.ar().depth().instruments().device_forwards;
    *warm_up_seconds += pipeline::warm_up_ar(models);
    EXPECT_GT(models.ar().lm_instruments().device_forwards, lm) << "the warm-up never reached the LM's device arm";
    EXPECT_GT(models.ar().depth().instruments().device_forwards, depth)
        << "the warm-up never reached the depth device arm";
  }
  const uint64_t lm = models.ar().lm_instruments().device_forwards;
  const uint64_t depth = models.ar().depth().instruments().device_forwards;
  const int64_t encoder = models.encoder().forwards(), dit = models.dit().forwards();
  const int64_t vocoder = models.vocoder().forwards();
  const pipeline::GenerateRequest r{"a bright synth pop song", "[verse]\nla la la", 9.0, 2, 7};
  pipeline::GenerateResult g = pipeline::run_generate(models, r);
  EXPECT_GT(models.ar().lm_instruments().device_forwards, lm) << "the song never reached the LM's device arm";
  EXPECT_GT(models.ar().depth().instruments().device_forwards, depth) << "the song never reached the depth device arm";
  EXPECT_GT(models.encoder().forwards(), encoder) << "the song never reached the condition encoder's arm";
  EXPECT_EQ(models.dit().forwards() - dit, 2 * int64_t(r.steps) * int64_t(g.acoustic.windows.size()))
      << "the DiT's arm: two calls per step and window";
  EXPECT_GT(models.vocoder().forwards(), vocoder) << "the song never reached the vocoder's arm";
  return g;
}

TEST(PipelineWarmUp, ChangesNoResult) {
  double seconds = -1;
  const pipeline::GenerateResult cold = song(false, nullptr), warm = song(true, &seconds);
  EXPECT_GE(seconds, 0.0);
  ASSERT_GE(cold.acoustic.windows.size(), 2u) << "a two-window song";
  record(gate_id(), "free_seed7", "warm_up_seconds", seconds, 0, BoundKind::ReportOnly);
  expect_same_song(gate_id(), "free_seed7", warm, cold);
}

// A host arm has nothing to warm (and at full geometry one call would cost seconds): the warm-up leaves it alone.
TEST(PipelineWarmUp, LeavesHostArmsAlone) {
  pipeline::PipelineModels models(embedded_pipeline_folder(), cpu_queue(), pipeline::parse_stage_arms("host"));
  const int64_t encoder = models.encoder().forwards(), dit = models.dit().forwards();
  const int64_t vocoder = models.vocoder().forwards();
  const uint64_t lm = models.ar().lm_instruments().host_forwards;
  const uint64_t depth = models.ar().depth().instruments().host_forwards;
  pipeline::warm_up_windows(models);
  EXPECT_EQ(pipeline::warm_up_ar(models), 0.0);
  EXPECT_EQ(models.ar().lm_instruments().host_forwards, lm) << "the warm-up called the LM's host arm";
  EXPECT_EQ(models.ar().depth().instruments().host_forwards, depth) << "the warm-up called the depth host arm";
  EXPECT_EQ(models.encoder().forwards(), encoder) << "the warm-up called the condition encoder's host arm";
  EXPECT_EQ(models.dit().forwards(), dit) << "the warm-up called the DiT's host arm";
  EXPECT_EQ(models.vocoder().forwards(), vocoder) << "the warm-up called the vocoder's host arm";
}

}  // namespace
}  // namespace music3::gates

int main(int argc, char** argv) { return music3::gates::gate_main(argc, argv); }
