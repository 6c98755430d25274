// Gate pipeline.ar_repeat: one seed gives one AR result in every process. `music3 ar` runs twice, each in its own
// process, on one request (seed 0, 4 s of audio: 101 iterations) on the gate's device (--device cpu|cuda), and the
// two dumps (tokens, codes, frame_hiddens) must be equal byte for byte (scripts/repro-check does the runs and the
// comparison and prints where they differ; this gate runs it and fails unless it reports them equal). The pipeline:
// the embedded tiny one (the pipeline oracle's folder), or MUSIC3_REPEAT_PIPELINE=DIR, a folder at full geometry
// on the GPU box (written first, when DIR lacks modular_model_index.json, by bench/pipeline/synthetic_pipeline.py on
// cuda; ctest's gate_ar_repeat_cuda_full).
// Why a second process and not a second run in one: a difference that comes from the device's state at start (its
// memory's contents, the order in which work starts) repeats inside one process and shows only across two. The
// H200 showed one (reports/bench/pipeline/GAP.md, session 15): at full geometry two `music3 ar` runs of one seed
// differ from the first decode step on, while the tiny pipeline's runs agree.
#include <gtest/gtest.h>
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "gates/lib/gate_env.h"

namespace music3::gates {
namespace {

std::string quoted(const std::string& s) { return "'" + s + "'"; }

// The shell status of `command` as an exit code (a signal counts as a failure).
int run(const std::string& command) {
  std::fprintf(stderr, "gate_ar_repeat: %s\n", command.c_str());
  std::fflush(stderr);
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

TEST(ArRepeat, OneSeedGivesOneResultInEveryProcess) {
  const char* source_env = std::getenv("MUSIC3_SOURCE_DIR");
  const std::string source = source_env ? source_env : MUSIC3_SOURCE_DIR;
  const std::string python = MUSIC3_DEFAULT_ORACLE_PYTHON;
  const char* named = std::getenv("MUSIC3_REPEAT_PIPELINE");
  const std::string folder = named ? named : std::string(MUSIC3_DEFAULT_PIPELINE_ORACLE_DIR) + "/pipelines/tiny";
  if (named && !std::filesystem::exists(std::filesystem::path(folder) / "modular_model_index.json")) {
    ASSERT_EQ(gate_device_name(), "cuda") << "a full-geometry pipeline is written on cuda only";
    const std::string partial = folder + ".partial";
    std::filesystem::remove_all(partial);
    ASSERT_EQ(run(quoted(python) + " " + quoted(source + "/bench/pipeline/synthetic_pipeline.py") + " " +
                  quoted(partial) + " --geometry full --device cuda"),
              0)
        << "writing the synthetic pipeline " << folder;
    std::filesystem::rename(partial, folder);
  }
  EXPECT_EQ(run("MUSIC3_BIN=" + quoted(MUSIC3_BIN) + " MUSIC3_PYTHON=" + quoted(python) + " " +
                quoted(source + "/scripts/repro-check") + " " + quoted(folder) + " " + gate_device_name() + " 4 2"),
            0)
      << "two processes of `music3 ar` on " << folder << ": scripts/repro-check's report above";
}

}  // namespace
}  // namespace music3::gates

int main(int argc, char** argv) { return music3::gates::gate_main(argc, argv); }
