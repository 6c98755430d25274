// Gate pipeline.ar_repeat: one seed gives one AR result in every process. `music3 ar` runs twice, each in its own
// process, on one request (seed 0, 4 s of audio: 101 iterations) and the two dumps (tokens, codes, frame_hiddens)
// must be equal byte for byte (scripts/repro-check does the runs and the comparison; this gate runs it and passes
// its verdict on). Cases:
//   --device cpu|cuda               the embedded tiny pipeline (the pipeline oracle's folder);
//   --device cuda --pipeline DIR    a pipeline folder at full geometry (the GPU box: DIR is written first, when it
//                                   lacks modular_model_index.json, by bench/pipeline/synthetic_pipeline.py on cuda).
// Why a second process and not a second run in one: a difference that comes from the device's state at start (its
// memory's contents, the order in which work starts) repeats inside one process and shows only across two. The
// H200 showed one (reports/bench/pipeline/GAP.md, session 15): at full geometry two `music3 ar` runs of one seed
// differ from the first decode step on, while the tiny pipeline's runs agree.
// Exit: 0 equal, 1 the runs differ or a run failed (scripts/repro-check's report above), 77 cuda without a device.
#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>

#include "engine/core/backend.h"

namespace {

int usage() {
  std::fprintf(stderr, "usage: gate_ar_repeat --device cpu|cuda [--pipeline DIR]\n");
  return 1;
}

std::string quoted(const std::string& s) { return "'" + s + "'"; }

// The shell status of `command` as an exit code (a signal counts as a failure).
int run(const std::string& command) {
  std::fprintf(stderr, "gate_ar_repeat: %s\n", command.c_str());
  std::fflush(stderr);
  const int status = std::system(command.c_str());
  return WIFEXITED(status) ? WEXITSTATUS(status) : 1;
}

}  // namespace

int main(int argc, char** argv) {
  std::string device, pipeline;
  for (int i = 1; i + 1 < argc; i += 2) {
    const std::string flag = argv[i];
    if (flag == "--device") device = argv[i + 1];
    else if (flag == "--pipeline") pipeline = argv[i + 1];
    else return usage();
  }
  if (argc % 2 == 0 || (device != "cpu" && device != "cuda") || (!pipeline.empty() && device != "cuda")) return usage();
  if (device == "cuda" && !music3::cuda_device_available()) {
    std::fprintf(stderr, "gate_ar_repeat: no CUDA device: skipped\n");
    return 77;
  }
  const std::string source = std::getenv("MUSIC3_SOURCE_DIR") ? std::getenv("MUSIC3_SOURCE_DIR") : MUSIC3_SOURCE_DIR;
  const std::string python = MUSIC3_DEFAULT_ORACLE_PYTHON;
  const std::string folder = pipeline.empty() ? std::string(MUSIC3_DEFAULT_PIPELINE_ORACLE_DIR) + "/pipelines/tiny"
                                              : pipeline;
  if (!pipeline.empty() && !std::filesystem::exists(std::filesystem::path(folder) / "modular_model_index.json")) {
    const std::string partial = folder + ".partial";
    std::filesystem::remove_all(partial);
    if (run(quoted(python) + " " + quoted(source + "/bench/pipeline/synthetic_pipeline.py") + " " + quoted(partial) +
            " --geometry full --device cuda") != 0)
      return 1;
    std::filesystem::rename(partial, folder);
  }
  const int verdict = run("MUSIC3_BIN=" + quoted(MUSIC3_BIN) + " MUSIC3_PYTHON=" + quoted(python) + " " +
                          quoted(source + "/scripts/repro-check") + " " + quoted(folder) + " " + device + " 4 2");
  if (verdict == 77) return 77;
  return verdict == 0 ? 0 : 1;
}
