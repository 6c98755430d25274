#include "engine/models/music3/pipeline/generate_run.h"

#include <chrono>
#include <cmath>

#include "engine/models/music3/tokenizer/prompt_ids.h"

namespace music3::pipeline {

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

std::vector<int32_t> text_ids(PipelineModels& m, const GenerateRequest& r, int* prompt_tokens) {
  const tokenizer::PromptIds ids = tokenizer::encode_prompt(m.tokenizer(), r.prompt, r.lyrics);
  std::vector<int32_t> out(ids.cond.begin(), ids.cond.end());
  out.insert(out.end(), ids.uncond.begin(), ids.uncond.end());
  *prompt_tokens = int(ids.cond.size());
  if (r.teacher && out != r.teacher->text_ids)
    throw GenerateError("teacher", r.teacher->path + ": the prompt's ids differ from the trace's text_ids (" +
                                       std::to_string(out.size() / 2) + " vs " +
                                       std::to_string(r.teacher->text_ids.size() / 2) + " tokens per row)");
  return out;
}

ar::ArResult run_ar_stage(PipelineModels& m, const GenerateRequest& r, const GenerateResult& g,
                          const GenerateProgress& p) {
  ar::ArOptions opts;
  opts.max_frames = g.max_frames;
  opts.draws.seed = r.seed;
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
  if (p.ar) opts.progress = [&](int64_t frames, int64_t) { p.ar(frames, g.max_frames); };
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

acoustic::AcousticResult run_acoustic_stage(PipelineModels& m, const GenerateRequest& r, const ar::ArResult& a,
                                            const GenerateProgress& p) {
  acoustic::AcousticOptions opts;
  opts.steps = r.steps;
  opts.progress = p.acoustic;
  const int64_t width = 8 * int64_t(m.ar().lm_config().hidden);
  acoustic::AcousticResult out =
      acoustic::run_acoustic(m.encoder(), m.dit(), a.frame_hiddens.data(), a.frames, width, noise_for(r), opts);
  for (const auto& w : out.windows)
    for (bf16 v : w.latents)
      if (!std::isfinite(to_f32(v)))
        throw GenerateError("nonfinite", "the acoustic stage's window at frame " + std::to_string(w.start) +
                                             " holds non-finite latents; nothing was decoded");
  return out;
}

vocoder::StereoAudio run_vocoder_stage(PipelineModels& m, const acoustic::AcousticResult& a,
                                       const GenerateProgress& p) {
  std::vector<vocoder::Waveform> waves;
  const int64_t windows = int64_t(a.windows.size());
  for (int64_t k = 0; k < windows; ++k) {
    const acoustic::AcousticWindow& w = a.windows[size_t(k)];
    waves.push_back(m.vocoder().decode(w.latents.data(), w.length));
    if (p.vocoder) p.vocoder(k, windows);
  }
  return vocoder::stitch(waves, m.checkpoint().condition.output_hop);
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
  auto t0 = std::chrono::steady_clock::now();
  g.text_ids = text_ids(m, r, &g.prompt_tokens);
  g.seconds.text = seconds_since(t0);
  t0 = std::chrono::steady_clock::now();
  g.ar = run_ar_stage(m, r, g, p);
  g.seconds.ar = seconds_since(t0);
  t0 = std::chrono::steady_clock::now();
  g.acoustic = run_acoustic_stage(m, r, g.ar, p);
  g.seconds.acoustic = seconds_since(t0);
  t0 = std::chrono::steady_clock::now();
  g.audio = run_vocoder_stage(m, g.acoustic, p);
  g.seconds.vocoder = seconds_since(t0);
  return g;
}

}  // namespace music3::pipeline
