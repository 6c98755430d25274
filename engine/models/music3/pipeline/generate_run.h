// One song, end to end (diffusers' MiniMaxMusic3ModularPipeline): prompt and lyrics to stereo audio through the
// loaded models (pipeline_models.h): text (the tokenizer's prompt ids, tokenizer/prompt_ids.h), the AR stage
// (ar/ar_stage.h: max_frames_for(duration) frames), the acoustic stage (acoustic/acoustic_stage.h: `steps` guided
// Euler steps per 200-frame window) and the vocoder with upstream's stitching (vocoder/vocoder_stitch.h, hop =
// the condition encoder's output hop).
// Contract: run_generate() runs the stages in that order, each on the previous stage's output, and returns every
// stage's output and its wall time. The windows (acoustic stage, then the vocoder's decode) run on the schedule
// `overlap` picks (window_schedule.h): overlapped, a window final before the AR loop ends runs on a worker thread
// beside it (the default); sequential, after it. Both give the same result bit for bit; the acoustic and vocoder
// seconds are then the windows' own time (summed), `first_window_start` the time from the start of the run to the first
// window's start (its frames out), `first_window` to the first window's decoded audio and `after_ar` from the end of
// the AR loop to the last window's. Randomness: without a teacher, the AR draws are keyed by `seed` and each window's
// noise by acoustic_noise_key(seed) (the noise's Philox counters have the depth draws' layout, so the same key would
// reuse their bits); with a teacher (a pipeline trace, pipeline_trace.h) the trace's LM and depth draws are replayed,
// its tokens and codes fed back and its window noise injected, so the result is comparable with upstream's stage by
// stage; the prompt ids must then equal the trace's text_ids (GenerateError "teacher").
// Errors: GenerateError with a kind ("teacher", "nonfinite": the stage that met non-finite values, nothing
// decoded after it), and what each stage throws (ArError, AcousticError, NoiseError, tokenizer errors), named.
// Progress callbacks are called one at a time, from the calling thread or the window worker's; while the AR loop
// runs beside the windows, only `ar` and `window` are called. Thread-safety: one run at a time per PipelineModels.
#pragma once
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/models/music3/acoustic/acoustic_stage.h"
#include "engine/models/music3/ar/ar_loop.h"
#include "engine/models/music3/pipeline/pipeline_models.h"
#include "engine/models/music3/pipeline/pipeline_trace.h"
#include "engine/models/music3/vocoder/vocoder_stitch.h"

namespace music3::pipeline {

class GenerateError : public std::runtime_error {
 public:
  GenerateError(std::string kind, const std::string& message);
  const std::string& kind() const { return kind_; }

 private:
  std::string kind_;
};

struct GenerateRequest {
  std::string prompt, lyrics;
  double duration = 60.0;  // seconds of audio asked for: max_frames_for(duration) AR frames
  int steps = 30;          // Euler steps per window
  uint64_t seed = 0;
  const PipelineTrace* teacher = nullptr;
  ar::ArTrace* ar_trace = nullptr;  // when given, the AR stage's intermediates (ar_loop.h) land here (the gates)
  bool overlap = true;              // the windows' schedule: overlapped with the AR loop, or after it
  bool ignore_eos = false;          // benchmarking: ArOptions::ignore_eos (max_frames frames, never <|audio_end|>)
};

struct GenerateProgress {
  std::function<void(int64_t frames, int max_frames)> ar;                            // after every AR iteration
  std::function<void(int64_t window, int64_t windows, int step, int steps)> acoustic;  // after every Euler step
  std::function<void(int64_t window, int64_t windows)> vocoder;                      // after every decoded window
  std::function<void(int64_t window, double seconds)> window;  // a finished window, seconds since the run began
};

struct StageSeconds {
  double text = 0, ar = 0, acoustic = 0, vocoder = 0, first_window_start = 0, first_window = 0, after_ar = 0;
};

struct GenerateResult {
  std::vector<int32_t> text_ids;  // [2][prompt_tokens]
  int prompt_tokens = 0, max_frames = 0;
  ar::ArResult ar;
  acoustic::AcousticResult acoustic;
  vocoder::StereoAudio audio;  // [2][samples], clamped to [-1, 1]
  int sample_rate = 0;
  bool overlapped = false;        // the schedule that ran
  int64_t windows_during_ar = 0;  // windows handed over while the AR loop ran (0 when sequential)
  bool first_window_alone = false;  // overlapped: the first window ran alone, the AR loop waiting (window_schedule.h)
  StageSeconds seconds;
};

uint64_t acoustic_noise_key(uint64_t seed);
GenerateResult run_generate(PipelineModels& models, const GenerateRequest& request,
                            const GenerateProgress& progress = {});

}  // namespace music3::pipeline
