#include "engine/models/music3/pipeline/window_schedule.h"

#include <cmath>
#include <utility>

#include "engine/models/music3/acoustic/acoustic_windows.h"
#include "engine/models/music3/pipeline/generate_run.h"

namespace music3::pipeline {

namespace {

double seconds_since(std::chrono::steady_clock::time_point t0) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

acoustic::AcousticOptions window_options(int steps, ProgressRelay& relay) {
  acoustic::AcousticOptions opts;
  opts.steps = steps;
  opts.progress = [&relay](int64_t k, int64_t n, int step, int steps) { relay.acoustic(k, n, step, steps); };
  return opts;
}

}  // namespace

void ProgressRelay::ar(int64_t frames, int max_frames) {
  if (!p_.ar) return;
  std::lock_guard lock(mu_);
  p_.ar(frames, max_frames);
}

void ProgressRelay::acoustic(int64_t window, int64_t windows, int step, int steps) {
  if (!p_.acoustic || ar_running_) return;
  std::lock_guard lock(mu_);
  p_.acoustic(window, windows, step, steps);
}

void ProgressRelay::vocoder(int64_t window, int64_t windows) {
  if (!p_.vocoder || ar_running_) return;
  std::lock_guard lock(mu_);
  p_.vocoder(window, windows);
}

void ProgressRelay::window(int64_t window, double seconds) {
  if (!p_.window) return;
  std::lock_guard lock(mu_);
  p_.window(window, seconds);
}

WindowStages::WindowStages(PipelineModels& m, const acoustic::NoiseSource& noise, int steps, ProgressRelay& relay,
                           std::chrono::steady_clock::time_point t0)
    : m_(m),
      relay_(relay),
      loop_(m.encoder(), m.dit(), m.frame_width(), noise, window_options(steps, relay)),
      t0_(t0) {
  acoustic.channels = loop_.channels();
}

void WindowStages::run(int64_t start, const bf16* hiddens, int64_t n, int64_t windows) {
  auto t = std::chrono::steady_clock::now();
  if (acoustic.windows.empty()) first_window_start_seconds = seconds_since(t0_);
  acoustic::AcousticWindow w = loop_.run_window(start, hiddens, n, windows);
  for (bf16 v : w.latents)
    if (!std::isfinite(to_f32(v)))
      throw GenerateError("nonfinite", "the acoustic stage's window at frame " + std::to_string(w.start) +
                                           " holds non-finite latents; nothing was decoded");
  acoustic_seconds += seconds_since(t);
  t = std::chrono::steady_clock::now();
  waves.push_back(m_.vocoder().decode(w.latents.data(), w.length));
  vocoder_seconds += seconds_since(t);
  const int64_t k = int64_t(acoustic.windows.size());
  relay_.vocoder(k, windows);
  if (k == 0) first_window_seconds = seconds_since(t0_);
  acoustic.windows.push_back(std::move(w));
  relay_.window(k, seconds_since(t0_));
}

void WindowFeed::hand_over(const bf16* hiddens, int64_t start, int64_t n) {
  const bf16* first_row = hiddens + start * width_;
  const bool first = !handed_any_;
  handed_any_ = true;
  if (!worker_ || first) {  // the caller's thread, which holds the AR loop: the rows cannot move meanwhile
    first_alone_ = first && worker_;
    return stages_.run(start, first_row, n, windows_);
  }
  worker_->submit([&stages = stages_, start, n, windows = windows_,
                   frames = std::vector<bf16>(first_row, first_row + n * width_)] {
    stages.run(start, frames.data(), n, windows);
  });
}

void WindowFeed::frames_out(const bf16* hiddens, int64_t frames) {
  while (acoustic::frames_until_final(next_) <= frames) {
    hand_over(hiddens, next_, acoustic::kWindowFrames);
    next_ += acoustic::kWindowHop;
    ++handed_early_;
  }
}

void WindowFeed::rest(const bf16* hiddens, int64_t frames) {
  const std::vector<int64_t> starts = acoustic::window_starts(frames);
  windows_ = int64_t(starts.size());
  for (int64_t start : starts)
    if (start >= next_) hand_over(hiddens, start, acoustic::window_frames(start, frames));
  next_ = frames;
}

}  // namespace music3::pipeline
