#include "engine/cli/progress_line.h"

#include <unistd.h>

#include <cstdio>

namespace music3::cli {

ProgressLine::ProgressLine(bool wanted) : enabled_(wanted && isatty(STDERR_FILENO)) {}

double ProgressLine::seconds_in_stage(int stage) {
  const auto now = std::chrono::steady_clock::now();
  if (stage != stage_) stage_ = stage, stage_start_ = now;
  return std::chrono::duration<double>(now - stage_start_).count();
}

void ProgressLine::draw(const char* text) {
  std::fprintf(stderr, "\r%-78s", text);
  std::fflush(stderr);
  drawn_ = true;
}

void ProgressLine::ar(int64_t frames, int64_t max_frames) {
  if (!enabled_) return;
  const double s = seconds_in_stage(0);
  const double rate = s > 0 ? double(frames) / s : 0.0;
  char line[160];
  int used = 0;
  if (rate > 0)
    used = std::snprintf(line, sizeof line, "AR frame %lld/%lld, %.1f frames/s, ETA %.0f s",
                         static_cast<long long>(frames), static_cast<long long>(max_frames), rate,
                         double(max_frames - frames) / rate);
  else
    used = std::snprintf(line, sizeof line, "AR frame %lld/%lld", static_cast<long long>(frames),
                         static_cast<long long>(max_frames));
  if (windows_done_ > 0 && used > 0 && size_t(used) < sizeof line)
    std::snprintf(line + used, sizeof line - size_t(used), "; %lld window(s) done, first at %.1f s",
                  static_cast<long long>(windows_done_), first_window_seconds_);
  draw(line);
}

void ProgressLine::acoustic(int64_t window, int64_t windows, int step, int steps) {
  if (!enabled_) return;
  char line[128];
  std::snprintf(line, sizeof line, "acoustic window %lld/%lld, step %d/%d, %.1f s", static_cast<long long>(window + 1),
                static_cast<long long>(windows), step + 1, steps, seconds_in_stage(1));
  draw(line);
}

void ProgressLine::vocoder(int64_t window, int64_t windows) {
  if (!enabled_) return;
  char line[128];
  std::snprintf(line, sizeof line, "vocoder window %lld/%lld, %.1f s", static_cast<long long>(window + 1),
                static_cast<long long>(windows), seconds_in_stage(2));
  draw(line);
}

void ProgressLine::window_done(int64_t window, double seconds_since_start) {
  if (!enabled_) return;
  if (window == 0) first_window_seconds_ = seconds_since_start;
  windows_done_ = window + 1;
}

void ProgressLine::finish() {
  if (drawn_) std::fprintf(stderr, "\n");
  drawn_ = false;
}

}  // namespace music3::cli
