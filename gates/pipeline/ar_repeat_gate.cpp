// Gate pipeline.ar_repeat: one seed gives one AR result in every process. `music3 ar` runs twice, each in its own
// process, on one request (seed 0, 4 s of audio: 101 iterations) on the gate's device (--device cpu|cuda), and the
// two dumps (tokens, codes, frame_hiddens) must be equal byte for byte (scripts/repro-check does the runs and the
// comparison; this gate fails with its report unless it says equal); and a third run of the binary must sample the
// tokens that the AR stage run in this process samples (the CLI adds nothing to the stage, and the gate's binary
// holds the stage's code, so the mutation battery sees a change there). The pipeline:
// the embedded tiny one (the pipeline oracle's folder), or `--pipeline DIR`, a folder at full geometry on the GPU
// box (written first, when DIR lacks modular_model_index.json, by bench/pipeline/synthetic_pipeline.py on cuda;
// ctest's gate_ar_repeat_cuda_full, and the mutation battery's gate of the same name).
// Why a second process and not a second run in one: a difference that comes from the device's state at start (its
// memory's contents, the order in which work starts) repeats inside one process and shows only across two. The
// H200 showed one (reports/bench/pipeline/GAP.md, session 15): at full geometry two `music3 ar` runs of one seed
// differ from the first decode step on, while the tiny pipeline's runs agree.
#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/models/music3/ar/ar_stage.h"
#include "engine/models/music3/depth/depth_loader.h"
#include "engine/models/music3/lm/lm_loader.h"
#include "engine/models/music3/tokenizer/prompt_ids.h"
#include "gates/lib/gate_env.h"
#include "gates/lib/shell_command.h"

namespace music3::gates {
namespace {

const char* const kPrompt = "a bright synth pop song with warm female vocals";  // scripts/repro-check's request
const char* const kLyrics = "[verse] hello world [chorus] sing with me";
constexpr double kSeconds = 4.0;

// The tokens the AR stage samples in this process for scripts/repro-check's request (seed 0, arms as the CLI's auto).
std::vector<int32_t> in_process_tokens(const std::string& dir) {
  auto tok = tokenizer::Qwen2Tokenizer::from_folder(dir);
  const tokenizer::PromptIds p = tokenizer::encode_prompt(tok, kPrompt, kLyrics);
  const std::vector<int32_t> ids = tokenizer::both_rows(p);
  ar::ArStage stage(lm::load_lm_checkpoint(dir), depth::load_depth_checkpoint(dir), gate_queue(),
                    runtime::ArmRequest::Auto);
  ar::ArOptions o;
  o.max_frames = ar::max_frames_for(kSeconds);
  o.draws.seed = 0;
  return stage.run(ids.data(), int(p.cond.size()), o).tokens;
}

std::string source_dir() {
  const char* env = std::getenv("MUSIC3_SOURCE_DIR");
  return env ? env : MUSIC3_SOURCE_DIR;
}

std::string g_named_pipeline;  // --pipeline DIR, or empty

// The pipeline folder the gate runs: --pipeline DIR (written first when it is missing), else the tiny one.
std::string pipeline_folder() {
  const bool named = !g_named_pipeline.empty();
  const std::string folder =
      named ? g_named_pipeline : std::string(MUSIC3_DEFAULT_PIPELINE_ORACLE_DIR) + "/pipelines/tiny";
  if (named && !std::filesystem::exists(std::filesystem::path(folder) / "modular_model_index.json")) {
    if (gate_device_name() != "cuda") throw std::runtime_error("a full-geometry pipeline is written on cuda only");
    const std::string partial = folder + ".partial";
    std::filesystem::remove_all(partial);
    const std::string script = source_dir() + "/bench/pipeline/synthetic_pipeline.py";
    if (run_shell(shell_quoted(MUSIC3_DEFAULT_ORACLE_PYTHON) + " " + shell_quoted(script) + " " +
                  shell_quoted(partial) + " --geometry full --device cuda")
            .status != 0)
      throw std::runtime_error("writing the synthetic pipeline " + folder + " failed");
    std::filesystem::rename(partial, folder);
  }
  return folder;
}

TEST(ArRepeat, OneSeedGivesOneResultInEveryProcess) {
  const std::string folder = pipeline_folder();
  const ShellRun r = run_shell("MUSIC3_BIN=" + shell_quoted(MUSIC3_BIN) + " MUSIC3_PYTHON=" +
                               shell_quoted(MUSIC3_DEFAULT_ORACLE_PYTHON) + " " +
                               shell_quoted(source_dir() + "/scripts/repro-check") + " " + shell_quoted(folder) + " " +
                               gate_device_name() + " " + std::to_string(int(kSeconds)) + " 2");
  EXPECT_EQ(r.status, 0) << "two processes of `music3 ar` on " << folder << ", scripts/repro-check:\n" << r.out;
}

TEST(ArRepeat, TheBinarySamplesWhatTheStageSamplesInProcess) {
  const std::string folder = pipeline_folder();
  const ShellRun r = run_shell(shell_quoted(MUSIC3_BIN) + " ar --checkpoint " + shell_quoted(folder) + " --prompt " +
                               shell_quoted(kPrompt) + " --lyrics " + shell_quoted(kLyrics) + " --duration " +
                               std::to_string(int(kSeconds)) + " --seed 0 --device " + gate_device_name() + " --json");
  ASSERT_EQ(r.status, 0);
  const std::vector<int32_t> cli = nlohmann::json::parse(r.out).at("tokens").get<std::vector<int32_t>>();
  EXPECT_EQ(cli, in_process_tokens(folder)) << "`music3 ar` and the AR stage in this process, one request";
}

}  // namespace
}  // namespace music3::gates

// `--pipeline DIR` is this gate's own flag; the rest goes to gate_main (--device, gtest's flags).
int main(int argc, char** argv) {
  std::vector<char*> rest;
  for (int i = 0; i < argc; ++i) {
    if (std::string(argv[i]) == "--pipeline" && i + 1 < argc) music3::gates::g_named_pipeline = argv[++i];
    else rest.push_back(argv[i]);
  }
  return music3::gates::gate_main(static_cast<int>(rest.size()), rest.data());
}
