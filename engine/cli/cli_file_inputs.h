// The CLI's readers of the files a user passes by flag (besides the checkpoint and the depth stage's own formats,
// depth_frame_files.h, and the pipeline trace, pipeline_trace.h):
//   acoustic --frames: read_bf16_matrix(file, "frame_hiddens"); acoustic --noise: read_noise_windows;
//   vocode --latents: read_window_latents per window<k>; ar --teacher: read_ar_teacher.
// Contract: every refusal (missing tensor, wrong dtype or shape, non-finite values, shapes that disagree, metadata
// that is not a number) is a std::runtime_error (a UsageError for --teacher) naming the file and the tensor or key;
// nothing else escapes (gates/cli/cli_fuzz.cpp holds this under libFuzzer, ASan and UBSan).
// Thread-safety: no shared state: thread-safe for distinct files.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/bf16.h"
#include "engine/io/safetensors.h"

namespace music3::cli {

// A [rows, cols] or [1, rows, cols] BF16 tensor, checked finite.
std::vector<bf16> read_bf16_matrix(const io::SafetensorsFile& f, const std::string& name, int64_t* rows, int64_t* cols);

// window0.noise, window1.noise, ... (each a read_bf16_matrix); at least window0.noise.
std::vector<std::vector<bf16>> read_noise_windows(const std::string& path);

// One window's latents as [C][L] bf16, from a [1,C,L] or [C,L] BF16/F32 tensor, checked finite.
std::vector<bf16> read_window_latents(const io::SafetensorsFile& f, const std::string& name, int channels, int64_t* length);

// An LM oracle golden (lm_exp_draws [I, V]) or a pipeline trace (lm_exp_draws_sliced [I, 16385], widened to the
// full vocabulary with 1 at the columns never read).
struct ArTeacherFile {
  std::vector<int32_t> text_ids, tokens, codes;
  std::vector<float> lm_draws, depth_draws;
  int64_t prompt = 0, vocab = 0, depth_rows = 0;
  double duration = 0;
};
ArTeacherFile read_ar_teacher(const std::string& path);

}  // namespace music3::cli
