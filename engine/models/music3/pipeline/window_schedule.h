// The windows of `music3 generate` after the AR stage's frames: each window's acoustic stage (the window loop of
// acoustic/acoustic_stage.h, one window at a time) and then the vocoder's decode of it, in window order, on one of
// two schedules with the same result bit for bit:
//   sequential  the caller runs every window of window_starts(F) after the AR stage (`--no-overlap`);
//   overlapped  a window is handed over as soon as it is final (acoustic_windows.h frames_until_final: start + 200
//               frames emitted); the rest follow when the AR stage ends.
//               The first window runs alone on the AR loop's thread (the loop waits for its audio), reading the
//               loop's rows in place; later ones go to a worker thread (runtime/serial_worker.h) with a copy of
//               the frames they cover, taken at hand-over, while the AR loop goes on. Why the first runs alone:
//               beside the AR loop a window only time-shares the GPU (reports/bench/pipeline/GAP.md: the loop grew
//               by about the windows' whole device time), so running it alone costs the song nothing measurable
//               and brings the first audio forward by the AR frames it would otherwise wait behind.
// Both run the same WindowStages::run on the same arms in the same order with the same inputs, so only the time
// differs (gate pipeline.overlap compares both). The acoustic arms and the vocoder run on the pipeline's side
// queue (pipeline_models.h): on CUDA a second stream, so the windows' kernels run beside the AR loop's.
// Contract:
// - ProgressRelay: forwards GenerateProgress callbacks one at a time (the AR thread and the worker both report);
//   while the AR loop runs beside the windows (ar_running), the windows' per-step and vocoder callbacks are held
//   back and only `window` (a finished window) reaches the caller.
// - WindowStages::run(start, hiddens, n, windows) runs the next window (acoustic, non-finite check, decode) over
//   the n frame rows at `hiddens`, which it reads only during the call, adding its stage times; the first finished
//   window's time is taken from `t0`. Non-finite latents throw GenerateError "nonfinite" naming the window's first
//   frame (nothing is decoded from it).
// - WindowFeed: frames_out(hiddens, E) hands over every window final at E frames; rest(hiddens, F) hands over the
//   windows of window_starts(F) not handed yet (sequential: all of them). With a worker, the first hand-over is
//   run() on the caller's thread (nothing has been submitted yet, so one thread at a time holds) and later ones are
//   submit(); without, every one is run() on the caller's thread. first_ran_alone() says whether the first window
//   ran on the caller's thread while a worker was there. The WindowStages must outlive the worker.
// Thread-safety: a WindowStages runs on one thread at a time (the worker's, or the caller's); WindowFeed belongs to
// the caller's thread.
#pragma once
#include <atomic>
#include <chrono>
#include <cstdint>
#include <mutex>
#include <vector>

#include "engine/models/music3/acoustic/acoustic_stage.h"
#include "engine/models/music3/pipeline/pipeline_models.h"
#include "engine/models/music3/vocoder/vocoder_stitch.h"
#include "engine/runtime/serial_worker.h"

namespace music3::pipeline {

struct GenerateProgress;

class ProgressRelay {
 public:
  explicit ProgressRelay(const GenerateProgress& p) : p_(p) {}
  void ar(int64_t frames, int max_frames);
  void acoustic(int64_t window, int64_t windows, int step, int steps);
  void vocoder(int64_t window, int64_t windows);
  void window(int64_t window, double seconds);
  void set_ar_running(bool running) { ar_running_ = running; }

 private:
  const GenerateProgress& p_;
  std::mutex mu_;
  std::atomic<bool> ar_running_{false};
};

class WindowStages {
 public:
  WindowStages(PipelineModels& m, const acoustic::NoiseSource& noise, int steps, ProgressRelay& relay,
               std::chrono::steady_clock::time_point t0);
  void run(int64_t start, const bf16* hiddens, int64_t n, int64_t windows);

  acoustic::AcousticResult acoustic;
  std::vector<vocoder::Waveform> waves;  // one per window, in window order
  double acoustic_seconds = 0, vocoder_seconds = 0, first_window_start_seconds = 0, first_window_seconds = 0;

 private:
  PipelineModels& m_;
  ProgressRelay& relay_;
  acoustic::AcousticWindowLoop loop_;
  std::chrono::steady_clock::time_point t0_;
};

class WindowFeed {
 public:
  WindowFeed(WindowStages& stages, runtime::SerialWorker* worker, int64_t frame_width, int64_t windows_planned)
      : stages_(stages), worker_(worker), width_(frame_width), windows_(windows_planned) {}
  void frames_out(const bf16* hiddens, int64_t frames);
  void rest(const bf16* hiddens, int64_t frames);
  int64_t handed_before_rest() const { return handed_early_; }  // windows frames_out handed over
  bool first_ran_alone() const { return first_alone_; }

 private:
  void hand_over(const bf16* hiddens, int64_t start, int64_t n);

  WindowStages& stages_;
  runtime::SerialWorker* worker_;
  int64_t width_, windows_, next_ = 0;  // next_: the start of the first window not handed over
  int64_t handed_early_ = 0;
  bool handed_any_ = false, first_alone_ = false;
};

}  // namespace music3::pipeline
