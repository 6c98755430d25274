// Gate pipeline.e2e: the engine's stages on the tiny pipeline folders against the real MiniMaxMusic3ModularPipeline
// (pinned diffusers + transformers), song by song, each stage fed what upstream gave the stage before it (the
// trace: oracle_bridge/pipeline/pipeline_trace.py), so each stage's band is its own:
//   0. the checkpoint: read_pipeline_checkpoint() accepts the folder (the production reader);
//   1. text: the C++ tokenizer and prompt rules on the song's prompt and lyrics give the trace's text ids, both
//      rows, exactly;
//   2. AR: the AR stage (ArStage) on upstream's text ids, teacher forced with the trace's tokens and codes and
//      replaying its draws, gives its iteration and frame counts and EOS outcome exactly, every token and code up
//      to a shared near-tie, and frame_hiddens within the band;
//   3. acoustic: the condition encoder and DiT arms the selection gives a CPU queue, in the window loop
//      (run_acoustic) on upstream's frame_hiddens with the trace's window noise injected, give every window's
//      latents within the band;
//   (an early-EOS song of the manifest must have ended on <|audio_end|> before its requested frames; the AR check
//   then asks the engine to stop at the same frame;)
//   4. vocoder: upstream's window latents through the vocoder arm and upstream's stitching (hop = the condition
//      encoder's output_hop_length) give the pipeline's audio within the band, sample count exact.
// The whole run (each stage fed the engine's own output) is gate pipeline.whole (whole_gate.cpp). Bands and the
// measurements behind them: gates/pipeline/pipeline_bounds.h.
#include <gtest/gtest.h>

#include <algorithm>

#include "engine/core/queue.h"
#include "engine/models/music3/acoustic/acoustic_selector.h"
#include "engine/models/music3/acoustic/acoustic_stage.h"
#include "engine/models/music3/acoustic/condition_encoder_loader.h"
#include "engine/models/music3/acoustic/dit_loader.h"
#include "engine/models/music3/ar/ar_stage.h"
#include "engine/models/music3/depth/depth_loader.h"
#include "engine/models/music3/lm/lm_loader.h"
#include "engine/models/music3/pipeline/pipeline_checkpoint.h"
#include "engine/models/music3/tokenizer/prompt_ids.h"
#include "engine/models/music3/vocoder/vocoder_loader.h"
#include "engine/models/music3/vocoder/vocoder_selector.h"
#include "gates/lib/gate_env.h"
#include "gates/pipeline/pipeline_bounds.h"
#include "gates/pipeline/pipeline_oracle.h"
#include "gates/pipeline/song_checks.h"

namespace music3::gates {
namespace {

void text_stage(const SongCheck& c, const std::string& folder) {
  auto tok = tokenizer::Qwen2Tokenizer::from_folder(folder);
  tokenizer::check_template_tokens(tok);
  const tokenizer::PromptIds ids = tokenizer::encode_prompt(tok, c.trace.prompt, c.trace.lyrics);
  check_text_ids(c, tokenizer::both_rows(ids));
}

void ar_stage(const SongCheck& c, const std::string& folder) {
  const pipeline::PipelineTrace& t = c.trace;
  ar::ArStage stage(lm::load_lm_checkpoint(folder), depth::load_depth_checkpoint(folder), cpu_queue(),
                    runtime::ArmRequest::Auto);
  const std::vector<float> lm_draws = t.lm_draws_full_vocab(stage.lm_config().vocab);
  ar::ArOptions opts;
  opts.max_frames = t.max_frames;
  opts.draws.lm_replay = lm_draws.data();
  opts.draws.lm_rows = t.iterations;
  opts.draws.lm_vocab = stage.lm_config().vocab;
  opts.draws.depth_replay = t.depth_draws.data();
  opts.draws.depth_rows = t.depth_frames;
  const ar::ArTeacher teacher{t.tokens.data(), t.iterations, t.codes.data(), t.depth_frames};
  opts.teacher = &teacher;
  ar::ArTrace trace;
  const ar::ArResult r = stage.run(t.text_ids.data(), int(t.prompt_length), opts, &trace);
  check_ar(c, r, trace, pipeline_bounds::kFrameHiddens);
}

void acoustic_stage(const SongCheck& c, const std::string& folder) {
  const pipeline::PipelineTrace& t = c.trace;
  const auto encoder_weights = acoustic::load_condition_encoder(folder);
  const auto dit_weights = acoustic::load_dit(folder);
  runtime::ArmInstruments encoder_instruments, dit_instruments;
  const auto encoder = acoustic::make_condition_encoder_arm(encoder_weights, cpu_queue(), runtime::ArmRequest::Auto,
                                                            encoder_instruments);
  const auto dit = acoustic::make_dit_arm(dit_weights, cpu_queue(), runtime::ArmRequest::Auto, dit_instruments);
  std::vector<std::vector<bf16>> noise;
  for (const auto& w : t.windows) noise.push_back(w.noise);
  acoustic::AcousticOptions opts;
  opts.steps = t.steps;
  const acoustic::AcousticResult r = acoustic::run_acoustic(*encoder, *dit, t.frame_hiddens.data(), t.frames,
                                                            t.frame_width, acoustic::NoiseSource::recorded(noise), opts);
  std::vector<std::vector<bf16>> latents;
  for (const auto& w : r.windows) latents.push_back(w.latents);
  check_latents(c, latents, pipeline_bounds::kLatents, pipeline_bounds::kLatentsMinExactFraction);
}

void vocoder_stage(const SongCheck& c, const pipeline::PipelineCheckpoint& p, const std::string& folder) {
  const vocoder::VocoderWeights weights = vocoder::load_vocoder_checkpoint(folder);
  auto arm = vocoder::make_vocoder_arm(weights, cpu_queue(), runtime::ArmRequest::Auto);
  std::vector<vocoder::Waveform> windows;
  for (const auto& w : c.trace.windows)
    windows.push_back(arm->decode(w.latents.data(), int64_t(w.latents.size()) / p.vocoder.latent_channels));
  check_audio(c, vocoder::stitch(windows, p.condition.output_hop), pipeline_bounds::kAudio,
              pipeline_bounds::kAudioMinExactFraction);
}

TEST(PipelineEndToEnd, StagesAgainstUpstreamPipeline) {
  const std::vector<std::string> early_eos = early_eos_cases();
  ASSERT_FALSE(early_eos.empty()) << "the manifest names no early-EOS song";
  for (const PipelineCase& pc : pipeline_cases()) {
    SCOPED_TRACE(pc.name);
    const std::string folder = pipeline_folder(pc.geometry);
    const pipeline::PipelineCheckpoint p = pipeline::read_pipeline_checkpoint(folder);
    const pipeline::PipelineTrace t = pipeline::read_pipeline_trace(pipeline_trace_path(pc));
    const SongCheck c{"pipeline.e2e", pc.name, t};
    if (std::find(early_eos.begin(), early_eos.end(), pc.name) != early_eos.end()) {
      EXPECT_TRUE(t.eos) << "an early-EOS song that did not end on <|audio_end|>";
      EXPECT_LT(t.frames, t.max_frames) << "an early-EOS song that ran its requested frames";
      record(c.gate, c.case_name, "early_eos.frames_short_of_request", double(t.max_frames - t.frames), 1,
             BoundKind::Lower);
    }
    text_stage(c, folder);
    ar_stage(c, folder);
    acoustic_stage(c, folder);
    vocoder_stage(c, p, folder);
  }
}

}  // namespace
}  // namespace music3::gates

int main(int argc, char** argv) { return music3::gates::gate_main(argc, argv); }
