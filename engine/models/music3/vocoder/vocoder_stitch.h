// Window stitching, as upstream's decode block does it: window k > 0 drops its first kCropLeft * hop samples,
// window k < last drops its last kCropRight * hop samples, the pieces are concatenated per stream, widened to
// f32 and clamped to [-1, 1]. The hop is the condition encoder's output hop (512), not the vocoder's.
// Contract: stitch() returns [2][total] f32 (left stream, then right). A window whose kept span would be
// negative (too short for its crops) is refused with std::invalid_argument naming the window, its length and
// the crops; an empty window list is refused too. single_window_samples(frames) is upstream's sample count of
// a one-window song of `frames` 25 Hz frames: hop * int(frames * 3.4453125). Pure functions (thread-safe).
#pragma once
#include <cstdint>
#include <vector>

#include "engine/models/music3/vocoder/vocoder_host_arm.h"

namespace music3::vocoder {

constexpr int64_t kStitchHop = 512;
constexpr int64_t kCropLeft = 86;
constexpr int64_t kCropRight = 344 - 86;

struct StereoAudio {
  int64_t samples = 0;      // per stream
  std::vector<float> data;  // [2][samples]
};

StereoAudio stitch(const std::vector<Waveform>& windows, int64_t hop = kStitchHop);
int64_t single_window_samples(int64_t frames, int64_t hop = kStitchHop);

}  // namespace music3::vocoder
