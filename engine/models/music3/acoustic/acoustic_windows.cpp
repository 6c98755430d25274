#include "engine/models/music3/acoustic/acoustic_windows.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace music3::acoustic {

std::vector<int64_t> window_starts(int64_t frames) {
  if (frames < 1) throw std::invalid_argument("window_starts: no frames (" + std::to_string(frames) + ")");
  if (frames <= kWindowFrames) return {0};
  std::vector<int64_t> starts;
  for (int64_t s = 0; s < frames - kWindowHop; s += kWindowHop) starts.push_back(s);
  return starts;
}

int64_t window_frames(int64_t start, int64_t frames) { return std::min(start + kWindowFrames, frames) - start; }

int64_t frames_until_final(int64_t start) { return start + kWindowFrames; }

int64_t latent_length(int64_t frames) {
  const double latents = double(frames) * 44100.0 / 24000.0 * 960.0 / 512.0;
  return std::max<int64_t>(1, static_cast<int64_t>(latents));
}

int64_t overlap_length(int64_t carried, int64_t length) { return std::min(carried, length); }

Span carry_span(int64_t length) {
  const int64_t a = std::max<int64_t>(0, length - 2 * kOverlapLatents);
  const int64_t b = std::max(a, length - kOverlapLatents);
  return {a, b};
}

void splice_rows(bf16* dst, const bf16* src, int64_t rows, int64_t width) {
  std::copy(src, src + rows * width, dst);
}

void splice_columns(bf16* dst, int64_t dst_len, const bf16* src, int64_t src_len, int64_t cols, int64_t channels) {
  for (int64_t c = 0; c < channels; ++c) std::copy(src + c * src_len, src + c * src_len + cols, dst + c * dst_len);
}

void renoise_overlap(bf16* x, int64_t length, const bf16* noise_prompt, const bf16* carried, int64_t carried_len,
                     int64_t ov, int64_t channels, bf16 t) {
  const float tv = to_f32(t);
  const float coef = round_bf16(1.0f - round_bf16(static_cast<float>(1.0 - 1e-6) * tv));
  for (int64_t c = 0; c < channels; ++c)
    for (int64_t j = 0; j < ov; ++j) {
      const float noise = round_bf16(coef * to_f32(noise_prompt[c * ov + j]));
      const float known = round_bf16(tv * to_f32(carried[c * carried_len + j]));
      x[c * length + j] = to_bf16(noise + known);
    }
}

}  // namespace music3::acoustic
