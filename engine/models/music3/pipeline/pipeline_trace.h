// A song's trace recorded from the real MiniMaxMusic3ModularPipeline (oracle_bridge/pipeline/pipeline_trace.py
// writes it; its docstring is the format): the teacher `music3 generate --teacher` and the end-to-end gate replay.
// Contract: read_pipeline_trace(path) reads the AR part and every window eagerly and checks every shape against
// the trace's own metadata (iterations, frames, windows, latent_lengths) and the sampled-column count; a missing
// tensor, a wrong dtype or shape, or metadata that disagrees throws std::runtime_error naming the file and the
// tensor. step(k, i, what) reads one recorded Euler step's tensor of window k ("x", "v_cond", "v_uncond",
// "v_guided", "x_next": [C][L_k] bf16) from the mapped file. lm_draws_full_vocab() widens the recorded draws to
// the [iterations][vocab] layout ar::ArDraws replays (E at the sampled columns, 1 elsewhere: never read).
// Thread-safety: const use is thread-safe.
#pragma once
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "engine/core/bf16.h"
#include "engine/io/safetensors.h"

namespace music3::pipeline {

struct TraceWindow {
  int64_t start_frame = 0, latent_length = 0;
  std::vector<bf16> condition;  // [L][Cc]: the condition encoder's output, before the overlap splice
  std::vector<bf16> noise;      // [C][L]
  std::vector<float> sigmas;    // [steps + 1]
  std::vector<bf16> latents;    // [C][L]: the window's final latents
  std::vector<bf16> waveform;   // [2][hop * L]: the vocoder's output
};

struct PipelineTrace {
  std::string path, case_name, geometry, prompt, lyrics;
  double audio_duration = 0;
  int steps = 0, max_frames = 0;
  int64_t prompt_length = 0, iterations = 0, depth_frames = 0, frames = 0, frame_width = 0, audio_vocab = 0;
  int64_t latent_channels = 0, samples = 0;
  bool eos = false;
  std::vector<int32_t> text_ids;       // [2][P]: the prompt, then its CFG copy
  std::vector<int32_t> tokens;         // [I]
  std::vector<int32_t> codes;          // [D][8]
  std::vector<float> lm_draws_sliced;  // [I][K]: E at the sampled columns (lm_ids.h column_id)
  std::vector<float> depth_draws;      // [D][7][A]
  std::vector<float> guided;           // [I][K]
  std::vector<bf16> lm_logits;         // [I][2][K]: the sliced lm_head rows (conditional, CFG) the sampler was given
  std::vector<float> depth_guided;     // [D][7][A]
  std::vector<bf16> frame_hiddens;     // [F][8H]
  std::vector<TraceWindow> windows;
  std::vector<float> audio;            // [2][samples]

  std::vector<bf16> step(int64_t window, int step, const std::string& what) const;
  std::vector<float> lm_draws_full_vocab(int64_t vocab) const;

  std::shared_ptr<const io::SafetensorsFile> file;
};

PipelineTrace read_pipeline_trace(const std::string& path);

}  // namespace music3::pipeline
