#include "engine/models/music3/pipeline/generate_run.h"

#include <chrono>

#include "engine/models/music3/acoustic/acoustic_windows.h"
#include "engine/models/music3/pipeline/window_schedule.h"
#include "engine/models/music3/tokenizer/prompt_ids.h"
#include "engine/runtime/serial_worker.h"

namespace music3::pipeline {

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::vector<int32_t> text_ids(PipelineModels& m, const GenerateRequest& r, int* prompt_tokens) {
  const tokenizer::PromptIds ids = tokenizer::encode_prompt(m.tokenizer(), r.prompt, r.lyrics);
  std::vector<int32_t> out = tokenizer::both_rows(ids);
  *prompt_tokens = int(ids.cond.size());
  if (r.teacher && out != r.teacher->text_ids)
    throw GenerateError("teacher", r.teacher->path + ": the prompt's ids differ from the trace's text_ids (" +
                                       std::to_string(out.size() / 2) + " vs " +
                                       std::to_string(r.teacher->text_ids.size() / 2) + " tokens per row)");
  return out;
}

ar::ArResult run_ar_stage(PipelineModels& m, const GenerateRequest& r, const GenerateResult& g, ProgressRelay& relay,
                          WindowFeed* feed) {
  ar::ArOptions opts;
  opts.max_frames = g.max_frames;
  opts.draws.seed = r.seed;
  opts.ignore_eos = r.ignore_eos;
  std::vector<float> lm_draws;
  ar::ArTeacher teacher;
  if (const PipelineTrace* t = r.teacher) {
    lm_draws = t->lm_draws_full_vocab(m.ar().lm_config().vocab);
    opts.draws.lm_replay = lm_draws.data();
    opts.draws.lm_rows = t->iterations;
    opts.draws.lm_vocab = m.ar().lm_config().vocab;
    opts.draws.depth_replay = t->depth_draws.data();
    opts.draws.depth_rows = t->depth_frames;
    teacher = {t->tokens.data(), t->iterations, t->codes.data(), t->depth_frames};
    opts.teacher = &teacher;
  }
  opts.progress = [&](int64_t frames, int64_t) { relay.ar(frames, g.max_frames); };
  if (feed) opts.frames_out = [feed](const bf16* hiddens, int64_t frames) { feed->frames_out(hiddens, frames); };
  ar::ArResult out = m.ar().run(g.text_ids.data(), g.prompt_tokens, opts, r.ar_trace);
  if (out.nonfinite_logits)
    throw GenerateError("nonfinite", "the AR stage met " + std::to_string(out.nonfinite_logits) +
                                         " non-finite logits; nothing was decoded");
  return out;
}

acoustic::NoiseSource noise_for(const GenerateRequest& r) {
  if (!r.teacher) return acoustic::NoiseSource::drawn(acoustic_noise_key(r.seed));
  std::vector<std::vector<bf16>> windows;
  for (const TraceWindow& w : r.teacher->windows) windows.push_back(w.noise);
  return acoustic::NoiseSource::recorded(std::move(windows));
}

}  // namespace

GenerateError::GenerateError(std::string kind, const std::string& message)
    : std::runtime_error(kind + ": " + message), kind_(std::move(kind)) {}

uint64_t acoustic_noise_key(uint64_t seed) {
  constexpr uint64_t kSalt = 0x61636F7573746963ull;  // "acoustic"
  uint64_t z = (seed ^ kSalt) + 0x9E3779B97F4A7C15ull;  // one splitmix64 step
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

GenerateResult run_generate(PipelineModels& m, const GenerateRequest& r, const GenerateProgress& p) {
  GenerateResult g;
  g.max_frames = ar::max_frames_for(r.duration);
  g.sample_rate = m.checkpoint().vocoder.sampling_rate;
  g.overlapped = r.overlap;
  const auto t_run = std::chrono::steady_clock::now();
  g.text_ids = text_ids(m, r, &g.prompt_tokens);
  g.seconds.text = seconds_since(t_run);

  ProgressRelay relay(p);
  const acoustic::NoiseSource noise = noise_for(r);
  WindowStages stages(m, noise, r.steps, relay, t_run);
  const int64_t width = m.frame_width();
  const int64_t planned = int64_t(acoustic::window_starts(g.max_frames).size());
  runtime::SerialWorker worker;  // after `stages`: joined before the stages its tasks run go away
  WindowFeed feed(stages, r.overlap ? &worker : nullptr, width, planned);

  auto t0 = std::chrono::steady_clock::now();
  relay.set_ar_running(r.overlap);
  g.ar = run_ar_stage(m, r, g, relay, r.overlap ? &feed : nullptr);
  relay.set_ar_running(false);
  g.seconds.ar = seconds_since(t0);
  g.windows_during_ar = feed.handed_before_rest();
  t0 = std::chrono::steady_clock::now();
  feed.rest(g.ar.frame_hiddens.data(), g.ar.frames);
  worker.finish();
  g.first_window_alone = feed.first_ran_alone();
  g.seconds.after_ar = seconds_since(t0);
  g.seconds.acoustic = stages.acoustic_seconds;
  g.seconds.vocoder = stages.vocoder_seconds;
  g.seconds.first_window_start = stages.first_window_start_seconds;
  g.seconds.first_window = stages.first_window_seconds;
  g.acoustic = std::move(stages.acoustic);
  g.audio = vocoder::stitch(stages.waves, m.checkpoint().condition.output_hop);
  return g;
}

}  // namespace music3::pipeline
