// The one progress line `music3 generate` keeps on a terminal: AR frames with frames/s and an ETA, then the
// acoustic windows and steps, then the vocoder's windows, each redrawn in place on stderr. Windows finished while
// the AR loop runs (window_done) are counted on the AR line, with the time to the first finished window.
// Contract: enabled only when `wanted` (no --quiet) and stderr is a terminal; disabled, every call is a no-op, so
// a pipe or a file never receives progress text. finish() ends the line (once) if anything was drawn.
// Thread-safety: one thread.
#pragma once
#include <chrono>
#include <cstdint>

namespace music3::cli {

class ProgressLine {
 public:
  explicit ProgressLine(bool wanted);
  ~ProgressLine() { finish(); }
  bool enabled() const { return enabled_; }
  void ar(int64_t frames, int64_t max_frames);
  void acoustic(int64_t window, int64_t windows, int step, int steps);
  void vocoder(int64_t window, int64_t windows);
  void window_done(int64_t window, double seconds_since_start);
  void finish();

 private:
  void draw(const char* text);
  bool enabled_ = false, drawn_ = false;
  std::chrono::steady_clock::time_point stage_start_;
  int stage_ = -1;
  int64_t windows_done_ = 0;
  double first_window_seconds_ = 0;
  double seconds_in_stage(int stage);
};

}  // namespace music3::cli
