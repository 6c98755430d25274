// Gate pipeline.generate: `music3 generate` as a user runs it (the binary, a child process) on the embedded tiny
// pipeline, against the in-process run of the same request (run_generate on PipelineModels) and against the
// stages composed by hand from the components' own entry points:
//   - teacher forced (tiny_w1_seed0's trace) and free running (--seed 7): exit 0; the JSON summary's frames,
//     iterations, windows, steps, samples, sample rate, channels, arms (host on cpu, per component), stage times
//     and peak device memory (null on cpu) are what the run gives; its sha256 is the written file's; the file,
//     read back through libsndfile (WAV float), holds the in-process audio bit for bit;
//   - one seed twice gives byte-identical files, another seed another file;
//   - the free run equals the hand-composed stages: the AR stage with draws keyed by the seed, the window loop
//     with noise keyed by acoustic_noise_key(seed), each window through the vocoder in order, stitched at the
//     condition encoder's hop (catches a seed not threaded, windows or streams reordered);
//   - max_frames is upstream's min(int(S * 25), 9000) for durations that round differently;
//   - --ignore-eos on tiny_eos (a pipeline that samples <|audio_end|> early): the seed whose song ends early without
//     the flag runs exactly int(10 * 25) = 250 frames with it, in two windows, and the summary says so;
//   - the `heads` geometry (the release's head dimensions) runs free through the binary;
//   - the default (overlapped) schedule and --no-overlap write one file byte for byte (a two-window song, 225
//     frames: window 0 runs beside the AR loop), and the summary says which ran, how many windows were handed over
//     during the AR loop (1 and 0) and the time to the first finished window (within the run's total).
#include <gtest/gtest.h>
#include <sndfile.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <nlohmann/json.hpp>

#include "engine/cli/generate_command.h"
#include "engine/core/queue.h"
#include "engine/io/sha256.h"
#include "engine/models/music3/acoustic/acoustic_stage.h"
#include "engine/models/music3/pipeline/generate_run.h"
#include "gates/lib/gate_env.h"
#include "gates/lib/gate_record.h"
#include "gates/lib/shell_command.h"
#include "gates/lib/ulp_stats.h"
#include "gates/pipeline/pipeline_oracle.h"

namespace music3::gates {
namespace {
namespace fs = std::filesystem;

constexpr const char* kGate = "pipeline.generate";

fs::path scratch() {
  static const fs::path dir = [] {
    fs::path d = fs::temp_directory_path() / ("pipeline_generate_gate_" + std::to_string(::getpid()));
    fs::remove_all(d);
    fs::create_directories(d);
    return d;
  }();
  return dir;
}

struct CliRun {
  int status = -1;
  nlohmann::json summary;
};

CliRun run_cli(const std::vector<std::string>& args, std::string* stdout_text = nullptr) {
  std::string cmd = shell_quoted(MUSIC3_BIN) + " generate";
  for (const auto& a : args) cmd.append(" ").append(shell_quoted(a));
  const ShellRun run = run_shell(cmd);
  CliRun r;
  r.status = run.status;
  r.summary = nlohmann::json::parse(run.out, nullptr, false);
  if (stdout_text) *stdout_text = run.out;
  return r;
}

// The file read back through libsndfile, as planar [2][frames] f32.
std::vector<float> read_back(const std::string& path, SF_INFO* info) {
  *info = {};
  SNDFILE* f = sf_open(path.c_str(), SFM_READ, info);
  if (!f) throw std::runtime_error("libsndfile cannot open " + path);
  std::vector<float> interleaved(size_t(info->frames * info->channels));
  const sf_count_t got = sf_readf_float(f, interleaved.data(), info->frames);
  sf_close(f);
  if (got != info->frames) throw std::runtime_error("short read of " + path);
  std::vector<float> planar(interleaved.size());
  for (sf_count_t i = 0; i < info->frames; ++i)
    for (int ch = 0; ch < info->channels; ++ch) planar[size_t(ch * info->frames + i)] = interleaved[size_t(i * info->channels + ch)];
  return planar;
}

void check_summary_and_file(const std::string& case_name, const CliRun& r, const pipeline::GenerateResult& g,
                            const std::string& out, int steps) {
  ASSERT_EQ(r.status, 0) << case_name;
  ASSERT_TRUE(r.summary.is_object()) << case_name << ": --json printed no JSON object";
  const nlohmann::json& j = r.summary;
  EXPECT_EQ(j.at("frames"), g.ar.frames);
  EXPECT_EQ(j.at("iterations"), g.ar.iterations);
  EXPECT_EQ(j.at("max_frames"), g.max_frames);
  EXPECT_EQ(j.at("prompt_tokens"), g.prompt_tokens);
  EXPECT_EQ(j.at("windows").size(), g.acoustic.windows.size());
  for (size_t k = 0; k < g.acoustic.windows.size(); ++k) {
    EXPECT_EQ(j.at("windows")[k].at("start"), g.acoustic.windows[k].start);
    EXPECT_EQ(j.at("windows")[k].at("length"), g.acoustic.windows[k].length);
  }
  EXPECT_EQ(j.at("steps"), steps);
  EXPECT_EQ(j.at("samples"), g.audio.samples);
  EXPECT_EQ(j.at("sample_rate"), g.sample_rate);
  EXPECT_EQ(j.at("channels"), 2);
  EXPECT_EQ(j.at("out"), out);
  for (const char* stage : {"lm", "depth", "condition_encoder", "dit", "vocoder"}) {
    EXPECT_EQ(j.at("arms").at(stage).at("arm"), "host") << stage;
    EXPECT_EQ(j.at("arms").at(stage).at("device"), "cpu") << stage;
  }
  for (const char* stage :
       {"load", "warm_up", "text", "ar", "prefill", "acoustic", "vocoder", "first_window_start", "first_window",
        "after_ar", "write", "total"})
    EXPECT_GE(j.at("seconds").at(stage).get<double>(), 0.0) << stage;
  // The load's steps, each timed once, inside the load (warm_up is the rest of it, 0 on the CPU).
  double load_steps = 0.0;
  for (const char* step :
       {"tokenizer", "language_model_read", "condition_encoder_read", "transformer_read", "vocoder_read",
        "rvq_depth_decoder_read", "ar_arms", "condition_encoder_arm", "transformer_arm", "vocoder_arm"}) {
    const double s = j.at("seconds").at("load_stages").at(step).get<double>();
    EXPECT_GE(s, 0.0) << step;
    load_steps += s;
  }
  EXPECT_EQ(j.at("seconds").at("load_stages").size(), 10u);
  EXPECT_LE(load_steps, j.at("seconds").at("load").get<double>()) << "disjoint intervals inside the load's";
  EXPECT_TRUE(j.at("peak_device_memory").at("bytes").is_null());
  EXPECT_EQ(j.at("sha256"), io::sha256_file(out));
  SF_INFO info;
  const std::vector<float> back = read_back(out, &info);
  EXPECT_EQ(info.format, SF_FORMAT_WAV | SF_FORMAT_FLOAT);
  EXPECT_EQ(info.channels, 2);
  EXPECT_EQ(info.samplerate, g.sample_rate);
  ASSERT_EQ(info.frames, g.audio.samples);
  size_t differing = 0;
  for (size_t i = 0; i < back.size(); ++i) differing += back[i] != g.audio.data[i];
  record(kGate, case_name, "file_vs_in_process.differing_samples", double(differing), 0);
  EXPECT_EQ(differing, 0u) << case_name;
}

pipeline::PipelineModels& models() {
  static pipeline::PipelineModels m(embedded_pipeline_folder(), cpu_queue(), pipeline::StageArms{});
  return m;
}

TEST(PipelineGenerateCli, TeacherForcedRunMatchesInProcess) {
  const PipelineCase pc{"tiny_w1_seed0", "tiny"};
  const pipeline::PipelineTrace t = pipeline::read_pipeline_trace(pipeline_trace_path(pc));
  const pipeline::GenerateResult g =
      pipeline::run_generate(models(), {t.prompt, t.lyrics, t.audio_duration, t.steps, 0, &t});
  const std::string out = (scratch() / "teacher.wav").string();
  const CliRun r = run_cli({"--checkpoint", embedded_pipeline_folder(), "--teacher", pipeline_trace_path(pc), "--out",
                            out, "--format", "wav-float", "--json", "--quiet"});
  check_summary_and_file(pc.name, r, g, out, t.steps);
  EXPECT_EQ(r.summary.at("teacher"), pipeline_trace_path(pc));
  EXPECT_TRUE(r.summary.at("seed").is_null());
}

const char* const kPrompt = "a bright synth pop song with warm female vocals";
const char* const kLyrics = "[verse]\nhello world\n[chorus]\nsing with me";

std::vector<std::string> free_args(const std::string& out, int seed) {
  return {"--checkpoint", embedded_pipeline_folder(), "--prompt", kPrompt, "--lyrics", kLyrics, "--duration", "4.2",
          "--steps", "3", "--seed", std::to_string(seed), "--out", out, "--format", "wav-float", "--json", "--quiet"};
}

TEST(PipelineGenerateCli, FreeRunMatchesInProcessAndRepeats) {
  const pipeline::GenerateResult g = pipeline::run_generate(models(), {kPrompt, kLyrics, 4.2, 3, 7});
  const std::string a = (scratch() / "seed7a.wav").string(), b = (scratch() / "seed7b.wav").string();
  const std::string c = (scratch() / "seed8.wav").string();
  check_summary_and_file("free_seed7", run_cli(free_args(a, 7)), g, a, 3);
  EXPECT_EQ(run_cli(free_args(b, 7)).status, 0);
  EXPECT_EQ(run_cli(free_args(c, 8)).status, 0);
  EXPECT_EQ(io::sha256_file(a), io::sha256_file(b)) << "one seed, two files";
  EXPECT_NE(io::sha256_file(a), io::sha256_file(c)) << "two seeds, one file";
}

TEST(PipelineGenerateCli, FreeRunIsTheComposedStages) {
  const uint64_t seed = 7;
  const pipeline::GenerateResult g = pipeline::run_generate(models(), {kPrompt, kLyrics, 9.0, 2, seed});
  ASSERT_GT(g.ar.frames, 200) << "a two-window song";
  ar::ArOptions ar_opts;
  ar_opts.max_frames = ar::max_frames_for(9.0);
  ar_opts.draws.seed = seed;
  const ar::ArResult a = models().ar().run(g.text_ids.data(), g.prompt_tokens, ar_opts);
  EXPECT_EQ(a.tokens, g.ar.tokens);
  EXPECT_EQ(differing_bits(a.frame_hiddens, g.ar.frame_hiddens), 0);
  acoustic::AcousticOptions ac_opts;
  ac_opts.steps = 2;
  const acoustic::AcousticResult lat = acoustic::run_acoustic(
      models().encoder(), models().dit(), a.frame_hiddens.data(), a.frames, int64_t(a.frame_hiddens.size()) / a.frames,
      acoustic::NoiseSource::drawn(pipeline::acoustic_noise_key(seed)), ac_opts);
  ASSERT_EQ(lat.windows.size(), g.acoustic.windows.size());
  std::vector<vocoder::Waveform> waves;
  int64_t differing_latents = 0;
  for (size_t k = 0; k < lat.windows.size(); ++k) {
    differing_latents += differing_bits(lat.windows[k].latents, g.acoustic.windows[k].latents) != 0;
    waves.push_back(models().vocoder().decode(lat.windows[k].latents.data(), lat.windows[k].length));
  }
  EXPECT_EQ(differing_latents, 0) << "windows whose latents differ from the composed stages'";
  const vocoder::StereoAudio audio = vocoder::stitch(waves, models().checkpoint().condition.output_hop);
  EXPECT_EQ(audio.samples, g.audio.samples);
  EXPECT_TRUE(audio.data == g.audio.data) << "the stitched audio differs from the composed stages'";
  record(kGate, "composed_seed7", "differing_windows", double(differing_latents), 0);
}

TEST(PipelineGenerateCli, HelpAndPerStageArms) {
  std::string help;
  EXPECT_EQ(run_cli({"--help"}, &help).status, 0);
  EXPECT_EQ(help.rfind(cli::kGenerateUsage, 0), 0u) << "music3 generate --help prints the command's usage first";
  // Each stage gets its own request: on a CPU queue, device arms run on the CPU providers.
  const std::string spec = "lm=device,depth=host,acoustic=host,vocoder=device";
  const pipeline::StageArms arms = pipeline::parse_stage_arms(spec);
  EXPECT_EQ(arms.describe(), spec);
  pipeline::PipelineModels mixed(embedded_pipeline_folder(), cpu_queue(), arms);
  const nlohmann::json want = {{"lm", "device"}, {"depth", "host"}, {"condition_encoder", "host"}, {"dit", "host"},
                               {"vocoder", "device"}};
  for (const auto& [stage, arm] : want.items()) EXPECT_EQ(mixed.describe_arms().at(stage).at("arm"), arm) << stage;
  const std::string out = (scratch() / "mixed.wav").string();
  const CliRun r = run_cli({"--checkpoint", embedded_pipeline_folder(), "--prompt", kPrompt, "--lyrics", kLyrics,
                            "--duration", "1", "--steps", "1", "--arm", spec, "--out", out, "--json", "--quiet"});
  ASSERT_EQ(r.status, 0);
  for (const auto& [stage, arm] : want.items()) EXPECT_EQ(r.summary.at("arms").at(stage).at("arm"), arm) << stage;
  const pipeline::StageArms one = pipeline::parse_stage_arms("host");
  EXPECT_EQ(one.describe(), "lm=host,depth=host,acoustic=host,vocoder=host");
}

std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

TEST(PipelineGenerateCli, OverlapAndNoOverlapWriteOneFile) {
  const std::string a = (scratch() / "overlap.wav").string(), b = (scratch() / "no_overlap.wav").string();
  std::vector<std::string> args = {"--checkpoint", embedded_pipeline_folder(), "--prompt", kPrompt, "--lyrics",
                                   kLyrics, "--duration", "9", "--steps", "2", "--seed", "7", "--json", "--quiet"};
  std::vector<std::string> over = args, seq = args;
  over.insert(over.end(), {"--out", a});
  seq.insert(seq.end(), {"--out", b, "--no-overlap"});
  const CliRun ro = run_cli(over), rs = run_cli(seq);
  ASSERT_EQ(ro.status, 0);
  ASSERT_EQ(rs.status, 0);
  ASSERT_GT(ro.summary.at("frames").get<int64_t>(), 200) << "a two-window song";
  EXPECT_EQ(ro.summary.at("overlap"), true);
  EXPECT_EQ(rs.summary.at("overlap"), false);
  EXPECT_EQ(ro.summary.at("windows_during_ar"), 1);
  EXPECT_EQ(rs.summary.at("windows_during_ar"), 0);
  for (const CliRun* r : {&ro, &rs}) {
    const double prefill = r->summary.at("seconds").at("prefill").get<double>();
    EXPECT_GT(prefill, 0.0) << "the prompt's prefill is timed";
    EXPECT_LT(prefill, r->summary.at("seconds").at("ar").get<double>()) << "the prefill is part of the AR stage";
    const double start = r->summary.at("seconds").at("first_window_start").get<double>();
    const double first = r->summary.at("seconds").at("first_window").get<double>();
    EXPECT_GT(start, 0.0) << "the first window starts after the AR frames it needs";
    EXPECT_LT(start, first) << "the first window's audio comes after its start";
    EXPECT_LE(first, r->summary.at("seconds").at("total").get<double>());
  }
  const bool same = file_bytes(a) == file_bytes(b);
  record(kGate, "overlap_vs_sequential", "files_differ", same ? 0.0 : 1.0, 0);
  EXPECT_TRUE(same) << "the overlapped and the sequential schedule wrote different files";
  EXPECT_EQ(ro.summary.at("sha256"), rs.summary.at("sha256"));
}

TEST(PipelineGenerateCli, IgnoreEosRunsTheRequestedFrames) {
  // tiny_eos (pipeline_geometries.py: the <|audio_end|> row of lm_head scaled up) samples <|audio_end|> early: this
  // seed's song ends before its 250 frames; with --ignore-eos the same seed runs exactly int(10 * 25) frames.
  const std::string folder = pipeline_folder("tiny_eos");
  std::vector<std::string> args = {"--checkpoint", folder, "--prompt", kPrompt, "--lyrics", kLyrics, "--duration",
                                   "10", "--steps", "1", "--seed", "3", "--json", "--quiet"};
  std::vector<std::string> plain = args, ignoring = args;
  plain.insert(plain.end(), {"--out", (scratch() / "eos.wav").string()});
  ignoring.insert(ignoring.end(), {"--out", (scratch() / "ignore_eos.wav").string(), "--ignore-eos"});
  const CliRun rp = run_cli(plain), ri = run_cli(ignoring);
  ASSERT_EQ(rp.status, 0);
  ASSERT_EQ(ri.status, 0);
  EXPECT_EQ(rp.summary.at("eos"), true) << "the seed's song must end on <|audio_end|> without the flag";
  EXPECT_LT(rp.summary.at("frames").get<int64_t>(), 250);
  EXPECT_EQ(rp.summary.at("ignore_eos"), false);
  EXPECT_EQ(ri.summary.at("ignore_eos"), true);
  EXPECT_EQ(ri.summary.at("eos"), false);
  EXPECT_EQ(ri.summary.at("max_frames"), 250);
  EXPECT_EQ(ri.summary.at("frames"), 250);
  EXPECT_EQ(ri.summary.at("iterations"), 251);
  EXPECT_EQ(ri.summary.at("windows").size(), 2u);
  record(kGate, "ignore_eos_seed3", "frames_without_flag", rp.summary.at("frames").get<double>(), 250,
         BoundKind::ReportOnly);
  record(kGate, "ignore_eos_seed3", "frames_short_of_request", 250 - ri.summary.at("frames").get<double>(), 0);
}

TEST(PipelineGenerateCli, HeadsGeometryRuns) {
  // The release's head dimensions at small widths (pipeline_geometries.py `heads`: LM heads of 128 with GQA 4:1 and a
  // query width 512 over hidden 256, depth heads of 256, DiT heads of 64 with rotary 32) free running through the
  // binary: exit 0, a one-window song of the requested 25 frames (or fewer on <|audio_end|>), host arms.
  const std::string out = (scratch() / "heads.wav").string();
  const CliRun r = run_cli({"--checkpoint", pipeline_folder("heads"), "--prompt", kPrompt, "--lyrics", kLyrics,
                            "--duration", "1", "--steps", "2", "--seed", "5", "--out", out, "--json", "--quiet"});
  ASSERT_EQ(r.status, 0);
  EXPECT_EQ(r.summary.at("max_frames"), 25);
  const int64_t frames = r.summary.at("frames").get<int64_t>();
  EXPECT_TRUE(frames == 25 || (r.summary.at("eos") == true && frames >= 1 && frames < 25)) << frames;
  EXPECT_EQ(r.summary.at("windows").size(), 1u);
  EXPECT_EQ(r.summary.at("arms").at("lm").at("arm"), "host");
  EXPECT_EQ(r.summary.at("sha256"), io::sha256_file(out));
}

TEST(PipelineGenerateCli, DurationToFrames) {
  // upstream: min(int(audio_duration * 25), 9000), Python float arithmetic
  const std::vector<std::pair<double, int>> cases = {{2.0, 50}, {2.03, 50}, {2.039, 50}, {2.04, 51}, {8.4, 210},
                                                     {0.04, 1}, {0.079, 1}, {359.99, 8999}, {400.0, 9000}};
  for (const auto& [seconds, frames] : cases) EXPECT_EQ(ar::max_frames_for(seconds), frames) << seconds << " s";
  const pipeline::GenerateResult g = pipeline::run_generate(models(), {kPrompt, kLyrics, 0.079, 1, 3});
  EXPECT_EQ(g.max_frames, 1);
  EXPECT_LE(g.ar.frames, 1);
}

}  // namespace
}  // namespace music3::gates

int main(int argc, char** argv) { return music3::gates::gate_main(argc, argv); }
