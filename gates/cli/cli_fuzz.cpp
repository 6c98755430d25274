// libFuzzer target over the files the `music3` commands read by flag (built with clang, -fsanitize=fuzzer,address,
// undefined; see cmake/Music3Fuzz.cmake). The first input byte picks the reader, the rest is written whole to a
// private temporary file and read as that command reads it:
//   0 depth --inputs      read_frame_inputs (a 64-wide test geometry)   1 depth --draws   read_exp_draws
//   2 acoustic --frames   read_bf16_matrix("frame_hiddens")             3 acoustic --noise read_noise_windows
//   4 vocode --latents    read_window_latents per window<k> (C = 8)     5 ar --teacher    read_ar_teacher
//   6 generate --teacher  read_pipeline_trace, then every recorded step and the widened draws
//   7 --lyrics-file       read_text_file
// Contract checked: a refusal is a std::runtime_error naming the file (the readers' documented error; the CLI maps
// it to exit 5, a UsageError to 1), nothing else escapes, and whatever is accepted stays inside the mapping (ASan).
#include <unistd.h>

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <stdexcept>
#include <string>

#include "engine/cli/args.h"
#include "engine/cli/cli_file_inputs.h"
#include "engine/models/music3/depth/depth_config.h"
#include "engine/models/music3/depth/depth_frame_files.h"
#include "engine/models/music3/lm/lm_ids.h"
#include "engine/models/music3/pipeline/pipeline_trace.h"

namespace {
using namespace music3;

depth::DepthConfig test_depth() {
  depth::DepthConfig cfg;
  cfg.hidden = 64;
  cfg.heads = 4;
  cfg.intermediate = 128;
  cfg.vocab = 16;
  return cfg;
}

void refused_by_name(const std::runtime_error& e, const std::string& path) {
  if (std::string(e.what()).find(path) == std::string::npos) {
    std::fprintf(stderr, "refusal does not name the file %s: %s\n", path.c_str(), e.what());
    std::abort();
  }
}

void pipeline_trace(const std::string& path) {
  const pipeline::PipelineTrace t = pipeline::read_pipeline_trace(path);
  for (size_t k = 0; k < t.windows.size(); ++k)
    for (int s = 0; s < t.steps; ++s)
      for (const char* what : {"x", "v_cond", "v_uncond", "v_guided", "x_next"}) (void)t.step(int64_t(k), s, what);
  (void)t.lm_draws_full_vocab(lm::kMinVocab);
}

void read_as(uint8_t reader, const std::string& path) {
  const depth::DepthConfig cfg = test_depth();
  int64_t rows = 0, cols = 0;
  switch (reader % 8) {
    case 0: (void)depth::read_frame_inputs(path, cfg); break;
    case 1: (void)depth::read_exp_draws(path, cfg, 1); break;
    case 2: (void)cli::read_bf16_matrix(io::SafetensorsFile(path), "frame_hiddens", &rows, &cols); break;
    case 3: (void)cli::read_noise_windows(path); break;
    case 4: {
      const io::SafetensorsFile f(path);
      for (int k = 0; f.has("window" + std::to_string(k)); ++k)
        (void)cli::read_window_latents(f, "window" + std::to_string(k), 8, &cols);
      break;
    }
    case 5: (void)cli::read_ar_teacher(path); break;
    case 6: pipeline_trace(path); break;
    default: (void)cli::read_text_file("--lyrics-file", path); break;
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  if (size == 0) return 0;
  const std::string path = "/tmp/music3-cli-fuzz-" + std::to_string(getpid()) + ".safetensors";
  std::ofstream(path, std::ios::binary | std::ios::trunc).write(reinterpret_cast<const char*>(data + 1),
                                                                std::streamsize(size - 1));
  try {
    read_as(data[0], path);
  } catch (const std::runtime_error& e) {
    refused_by_name(e, path);
  }
  std::remove(path.c_str());
  return 0;
}
