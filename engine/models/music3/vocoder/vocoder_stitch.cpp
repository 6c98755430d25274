#include "engine/models/music3/vocoder/vocoder_stitch.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace music3::vocoder {

StereoAudio stitch(const std::vector<Waveform>& windows, int64_t hop) {
  if (windows.empty()) throw std::invalid_argument("stitch: no windows");
  const size_t n = windows.size();
  std::vector<int64_t> begin(n), end(n);
  StereoAudio out;
  for (size_t k = 0; k < n; ++k) {
    const int64_t len = windows[k].samples;
    begin[k] = k == 0 ? 0 : kCropLeft * hop;
    end[k] = len - (k + 1 == n ? 0 : kCropRight * hop);
    if (end[k] < begin[k])
      throw std::invalid_argument("stitch: window " + std::to_string(k) + " has " + std::to_string(len) +
                                  " samples, fewer than its crops (" + std::to_string(begin[k]) + " left, " +
                                  std::to_string(len - end[k]) + " right)");
    out.samples += end[k] - begin[k];
  }
  out.data.resize(2 * static_cast<size_t>(out.samples));
  for (int s = 0; s < 2; ++s) {
    float* dst = out.data.data() + static_cast<size_t>(s) * static_cast<size_t>(out.samples);
    for (size_t k = 0; k < n; ++k) {
      const bf16* src = windows[k].data.data() + static_cast<size_t>(s) * static_cast<size_t>(windows[k].samples);
      for (int64_t t = begin[k]; t < end[k]; ++t) *dst++ = std::clamp(to_f32(src[t]), -1.0f, 1.0f);
    }
  }
  return out;
}

int64_t single_window_samples(int64_t frames, int64_t hop) {
  // int(F * 3.4453125): 3.4453125 = 441/128 exactly, so integer arithmetic gives Python's float result.
  return hop * (frames * 441 / 128);
}

}  // namespace music3::vocoder
