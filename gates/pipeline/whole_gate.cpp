// Gate pipeline.whole: `music3 generate`'s run (run_generate on PipelineModels, the production path) on the tiny
// pipeline folders against the real MiniMaxMusic3ModularPipeline's traces, teacher forced (the trace's LM and
// depth draws replayed, its tokens and codes fed back, its window noise injected) but otherwise whole: every stage
// is fed the engine's own output of the stage before (text ids from the engine's tokenizer, frame_hiddens from
// its AR stage, latents from its acoustic stage). Checked per song: text ids exact; iterations, frames and EOS
// exact, tokens and codes up to a shared near-tie, frame_hiddens, window latents and the stitched audio within
// the bands of gates/pipeline/pipeline_bounds.h (the audio's own whole-run band: the vocoder amplifies the
// latents' few differing roundings); the arms reported are the CPU queue's host arms; the DiT ran 2 * steps
// calls per window.
#include <gtest/gtest.h>

#include "engine/core/queue.h"
#include "engine/models/music3/pipeline/generate_run.h"
#include "gates/lib/gate_env.h"
#include "gates/pipeline/pipeline_bounds.h"
#include "gates/pipeline/pipeline_oracle.h"
#include "gates/pipeline/song_checks.h"

namespace music3::gates {
namespace {

TEST(PipelineWhole, GenerateAgainstUpstreamPipeline) {
  for (const PipelineCase& pc : pipeline_cases()) {
    SCOPED_TRACE(pc.name);
    const pipeline::PipelineTrace t = pipeline::read_pipeline_trace(pipeline_trace_path(pc));
    pipeline::PipelineModels models(pipeline_folder(pc.geometry), cpu_queue(), pipeline::StageArms{});
    ar::ArTrace ar_trace;
    pipeline::GenerateRequest request{t.prompt, t.lyrics, t.audio_duration, t.steps, 0, &t, &ar_trace};
    const pipeline::GenerateResult g = pipeline::run_generate(models, request);
    const SongCheck c{"pipeline.whole", pc.name, t};
    EXPECT_EQ(g.max_frames, t.max_frames);
    check_text_ids(c, g.text_ids);
    check_ar(c, g.ar, ar_trace, pipeline_bounds::kFrameHiddens);
    std::vector<std::vector<bf16>> latents;
    for (const auto& w : g.acoustic.windows) latents.push_back(w.latents);
    check_latents(c, latents, pipeline_bounds::kLatents, pipeline_bounds::kLatentsMinExactFraction);
    check_audio(c, g.audio, pipeline_bounds::kWholeAudio, pipeline_bounds::kWholeAudioMinExactFraction);
    EXPECT_EQ(models.dit().forwards(), 2 * int64_t(t.steps) * int64_t(t.windows.size()));
    EXPECT_EQ(models.describe_arms().at("dit").at("arm"), "host");
    EXPECT_EQ(g.sample_rate, 44100);
  }
}

}  // namespace
}  // namespace music3::gates

int main(int argc, char** argv) { return music3::gates::gate_main(argc, argv); }
