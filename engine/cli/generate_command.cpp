#include "engine/cli/generate_command.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <iostream>
#include <nlohmann/json.hpp>

#include "engine/cli/args.h"
#include "engine/cli/command.h"
#include "engine/cli/device_flags.h"
#include "engine/cli/progress_line.h"
#include "engine/core/exit_code.h"
#include "engine/io/audio_file.h"
#include "engine/io/sha256.h"
#include "engine/models/music3/pipeline/ar_warm_up.h"
#include "engine/models/music3/pipeline/generate_run.h"
#include "engine/models/music3/pipeline/window_warm_up.h"
#include "engine/runtime/device_pools.h"

namespace music3::cli {

const char* const kGenerateUsage =
    "usage: music3 generate --checkpoint DIR --prompt TEXT (--lyrics TEXT | --lyrics-file FILE) [--duration S]\n"
    "                       [--steps N] [--seed S] [--out FILE] [--format wav16|wav24|wav-float|flac] [--force]\n"
    "                       [--device cpu|cuda] [--arm auto|host|device|STAGE=ARM,...] [--teacher TRACE]\n"
    "                       [--threads N] [--no-overlap] [--no-warm-up] [--ignore-eos] [--json] [--quiet]\n"
    "  DIR: a pipeline in the diffusers hub layout (modular_model_index.json, tokenizer/, language_model/,\n"
    "  rvq_depth_decoder/, condition_encoder/, transformer/, scheduler/, vocoder/), checked whole before any work.\n"
    "  --duration S: seconds of audio asked for, min(int(S * 25), 9000) AR frames (default 60); the song ends\n"
    "  earlier on <|audio_end|>. --steps N: Euler steps per window (default 30). --seed S: keys the AR draws and\n"
    "  the window noise (default 0). --out FILE: .wav (16-bit) or .flac (24-bit), or as --format says (default\n"
    "  song.wav); an existing file is kept unless --force. --arm: one request for every stage, or per stage\n"
    "  (lm, depth, acoustic, vocoder), e.g. lm=device,acoustic=host. --teacher TRACE: a pipeline trace\n"
    "  (oracle_bridge/pipeline): its draws, tokens, codes and window noise are replayed; prompt, lyrics,\n"
    "  duration and steps default to the trace's. --no-overlap: run every window's acoustic stage and vocoder\n"
    "  after the AR loop instead of beside it (the default runs a window as soon as its 200 frames are out; both\n"
    "  give the same file). --no-warm-up: on cuda, skip the warm-up at load (one zero window through the condition\n"
    "  encoder, the DiT and the vocoder, and one short AR run of one frame, so plans, graphs and buffers are ready\n"
    "  before the song; seconds.warm_up reports it, inside seconds.load; the file is the same either way).\n"
    "  --json: seconds.load_stages splits the rest of seconds.load: the tokenizer, each component's read of its\n"
    "  weights (*_read) and each arm's making (*_arms, *_arm: on cuda, the uploads).\n"
    "  --ignore-eos: for benchmarking, <|audio_end|> is never sampled (its logit is masked), so the run makes\n"
    "  exactly min(int(S * 25), 9000) frames, as the diffusers pipeline does with that logit masked\n"
    "  (bench/pipeline/diffusers_pipeline_peer.py); not the model's song; refused with --teacher.\n"
    "  --quiet: no progress line.\n"
    "  --device: where every stage runs, cpu (the default) or cuda.\n";

namespace {

struct Flags {
  std::string checkpoint, prompt, lyrics, out;
  io::AudioFormat format = io::AudioFormat::Wav16;
  double duration = 60.0;
  int steps = 30;
  uint64_t seed = 0;
  bool force = false;
};

double parse_duration(const std::string& text) {
  try {
    size_t used = 0;
    const double d = std::stod(text, &used);
    if (used == text.size()) return d;
  } catch (const std::exception&) {
  }
  throw UsageError("--duration: '" + text + "' is not a number of seconds");
}

Flags read_flags(const Args& a, const pipeline::PipelineTrace* teacher) {
  Flags f;
  if (!a.has("--checkpoint")) throw UsageError("--checkpoint DIR is required");
  f.checkpoint = *a.get("--checkpoint");
  if (a.has("--lyrics") && a.has("--lyrics-file")) throw UsageError("give one of --lyrics TEXT or --lyrics-file FILE");
  if (!teacher && !a.has("--prompt")) throw UsageError("--prompt TEXT is required");
  if (!teacher && !a.has("--lyrics") && !a.has("--lyrics-file"))
    throw UsageError("--lyrics TEXT or --lyrics-file FILE is required");
  if (teacher && a.has("--seed")) throw UsageError("--seed keys drawn randomness; it has no use with --teacher");
  if (teacher && a.has("--ignore-eos"))
    throw UsageError("--ignore-eos masks the sampled <|audio_end|>; with --teacher the trace's tokens are fed back");
  f.prompt = a.get_or("--prompt", teacher ? teacher->prompt : "");
  f.lyrics = a.has("--lyrics-file") ? read_text_file("--lyrics-file", *a.get("--lyrics-file"))
                                    : a.get_or("--lyrics", teacher ? teacher->lyrics : "");
  f.duration = a.has("--duration") ? parse_duration(*a.get("--duration")) : teacher ? teacher->audio_duration : 60.0;
  ar::max_frames_for(f.duration);  // refuses a bad duration (ArError bad_duration) before any work
  f.steps = int(a.get_int_or("--steps", teacher ? teacher->steps : 30, 1, 1000));
  f.seed = a.get_u64_or("--seed", 0);
  f.out = a.get_or("--out", "song.wav");
  f.format = a.has("--format") ? io::audio_format_from_name(*a.get("--format")) : io::audio_format_from_path(f.out);
  f.force = a.has("--force");
  if (!f.force && std::filesystem::exists(f.out))
    throw io::AudioFileError(io::AudioFileError::Kind::Exists, f.out + " exists (give --force to replace it)");
  return f;
}

// The device pool keeps every block until the process exits, so what it holds now is its peak.
nlohmann::json peak_device_memory(const Queue& q) {
  const DevicePool* pool = q.is_cpu() ? nullptr : runtime::shared_device_pool(q);
  nlohmann::json bytes = nullptr;
  if (pool) bytes = pool->stats().bytes_live + pool->stats().bytes_cached;
  return {{"bytes", bytes}, {"device", device_type_name(q.device)}, {"what", "bytes held by the engine's device pool"}};
}

nlohmann::json summary(const Flags& f, const pipeline::PipelineModels& m, const pipeline::GenerateResult& g,
                       const nlohmann::json& seconds, const std::string& teacher, bool ignore_eos) {
  nlohmann::json windows = nlohmann::json::array();
  for (const auto& w : g.acoustic.windows)
    windows.push_back({{"start", w.start}, {"frames", w.frames}, {"length", w.length}, {"overlap", w.overlap}});
  nlohmann::json out = {{"checkpoint", f.checkpoint},
                        {"duration", f.duration},
                        {"prompt_tokens", g.prompt_tokens},
                        {"max_frames", g.max_frames},
                        {"frames", g.ar.frames},
                        {"iterations", g.ar.iterations},
                        {"eos", g.ar.eos},
                        {"ar_loop", g.ar.device_frame ? "device-resident" : "host-driven"},
                        {"ignore_eos", ignore_eos},
                        {"frames_per_second", g.seconds.ar > 0 ? double(g.ar.frames) / g.seconds.ar : 0.0},
                        {"windows", windows},
                        {"overlap", g.overlapped},
                        {"windows_during_ar", g.windows_during_ar},
                        {"first_window_alone", g.first_window_alone},
                        {"steps", f.steps},
                        {"seed", teacher.empty() ? nlohmann::json(f.seed) : nlohmann::json(nullptr)},
                        {"teacher", teacher.empty() ? nlohmann::json(nullptr) : nlohmann::json(teacher)},
                        {"arms", m.describe_arms()},
                        {"weights_sha256", m.weights_sha256()},
                        {"seconds", seconds},
                        {"peak_device_memory", peak_device_memory(m.queue())},
                        {"out", f.out},
                        {"format", io::audio_format_name(f.format)},
                        {"sample_rate", g.sample_rate},
                        {"channels", 2},
                        {"samples", g.audio.samples}};
  return out;
}

int generate(const std::vector<std::string>& argv) {
  const auto t_start = std::chrono::steady_clock::now();
  auto since = [](std::chrono::steady_clock::time_point t) {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
  };
  Args a(argv,
         {"--checkpoint", "--prompt", "--lyrics", "--lyrics-file", "--duration", "--steps", "--seed", "--out",
          "--format", "--device", "--arm", "--teacher", "--threads"},
         {"--force", "--json", "--quiet", "--no-overlap", "--no-warm-up", "--ignore-eos"});
  std::unique_ptr<pipeline::PipelineTrace> teacher;
  if (auto path = a.get("--teacher")) teacher = std::make_unique<pipeline::PipelineTrace>(pipeline::read_pipeline_trace(*path));
  const Flags f = read_flags(a, teacher.get());
  pipeline::StageArms arms;
  try {
    arms = pipeline::parse_stage_arms(a.get_or("--arm", "auto"));
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--arm: ") + e.what());
  }
  const Queue queue = queue_from_flag(a.get_or("--device", "cpu"), int(a.get_int_or("--threads", 0, 0, 1024)));

  auto t0 = std::chrono::steady_clock::now();
  pipeline::PipelineModels models(f.checkpoint, queue, arms);
  const bool warm_up = queue.device == DeviceType::CUDA && !a.has("--no-warm-up");
  const double warm_up_seconds = warm_up ? pipeline::warm_up_windows(models) + pipeline::warm_up_ar(models) : 0.0;
  const double load_seconds = since(t0);

  ProgressLine line(!a.has("--quiet"));
  pipeline::GenerateProgress progress;
  if (line.enabled()) {
    progress.ar = [&](int64_t frames, int max_frames) { line.ar(frames, max_frames); };
    progress.acoustic = [&](int64_t k, int64_t n, int step, int steps) { line.acoustic(k, n, step, steps); };
    progress.vocoder = [&](int64_t k, int64_t n) { line.vocoder(k, n); };
    progress.window = [&](int64_t k, double seconds) { line.window_done(k, seconds); };
  }
  pipeline::GenerateRequest request{f.prompt, f.lyrics, f.duration, f.steps, f.seed, teacher.get()};
  request.overlap = !a.has("--no-overlap");
  request.ignore_eos = a.has("--ignore-eos");
  pipeline::GenerateResult g;
  try {
    g = pipeline::run_generate(models, request, progress);
  } catch (const pipeline::GenerateError& e) {
    line.finish();
    if (e.kind() != "nonfinite") throw;
    std::cerr << "music3 generate: " << e.what() << " (no file written)\n";
    return exit_code::kNonFinite;
  }
  line.finish();
  t0 = std::chrono::steady_clock::now();
  io::write_audio_file(f.out, g.audio.data, 2, g.audio.samples, g.sample_rate, f.format, f.force);
  const double write_seconds = since(t0);
  const nlohmann::json seconds = {{"load", load_seconds},
                                  {"load_stages", models.load_stages()},
                                  {"warm_up", warm_up_seconds},
                                  {"text", g.seconds.text},
                                  {"ar", g.seconds.ar},
                                  {"prefill", g.ar.prefill_seconds},
                                  {"acoustic", g.seconds.acoustic},
                                  {"vocoder", g.seconds.vocoder},
                                  {"first_window_start", g.seconds.first_window_start},
                                  {"first_window", g.seconds.first_window},
                                  {"after_ar", g.seconds.after_ar},
                                  {"write", write_seconds},
                                  {"total", since(t_start)}};
  nlohmann::json out = summary(f, models, g, seconds, a.get_or("--teacher", ""), request.ignore_eos);
  out["sha256"] = io::sha256_file(f.out);
  if (a.has("--json")) {
    std::cout << out.dump(1) << "\n";
  } else {
    std::printf("%s: %lld stereo frames at %d Hz (%s), %lld AR frames in %zu window(s) x %d steps, %.2f s; sha256 %s\n",
                f.out.c_str(), static_cast<long long>(g.audio.samples), g.sample_rate, io::audio_format_name(f.format),
                static_cast<long long>(g.ar.frames), g.acoustic.windows.size(), f.steps,
                out["seconds"]["total"].get<double>(), out["sha256"].get<std::string>().c_str());
  }
  return exit_code::kOk;
}

}  // namespace

int run_generate_command(const std::vector<std::string>& argv) {
  try {
    return generate(argv);
  } catch (const io::AudioFileError& e) {  // named by its kind: unknown_format, exists, unwritable, bad_samples
    throw std::runtime_error(std::string(io::audio_error_kind_name(e.kind)) + ": " + e.what());
  }
}

Command generate_command() {
  return {"generate", "prompt and lyrics to a song, end to end (text, AR, acoustic, vocoder) as a WAV/FLAC file",
          kGenerateUsage, run_generate_command};
}

}  // namespace music3::cli
