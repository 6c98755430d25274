#include "engine/models/music3/acoustic/acoustic_noise.h"

#include <cmath>
#include <string>

#include "engine/core/counter_rng.h"

namespace music3::acoustic {

float normal_draw(uint64_t seed, uint64_t window, uint64_t index) {
  const uint64_t block = index / 4;
  const U32x4 r = philox4x32_10({{static_cast<uint32_t>(block), static_cast<uint32_t>(block >> 32),
                                  static_cast<uint32_t>(window), static_cast<uint32_t>(window >> 32)}},
                                 static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32));
  const unsigned pair = static_cast<unsigned>(index % 4) / 2;
  const double u1 = (double(r.v[2 * pair] >> 8) + 1.0) * 0x1.0p-24;  // (0, 1]: the log stays finite
  const double u2 = double(r.v[2 * pair + 1] >> 8) * 0x1.0p-24;      // [0, 1)
  const double radius = std::sqrt(-2.0 * std::log(u1));
  const double angle = 2.0 * M_PI * u2;
  return static_cast<float>(index % 2 == 0 ? radius * std::cos(angle) : radius * std::sin(angle));
}

NoiseSource NoiseSource::drawn(uint64_t seed) {
  NoiseSource s;
  s.seed_ = seed;
  return s;
}

NoiseSource NoiseSource::recorded(std::vector<std::vector<bf16>> windows) {
  NoiseSource s;
  s.recorded_ = true;
  s.windows_ = std::move(windows);
  return s;
}

std::vector<bf16> NoiseSource::window_noise(int64_t window, int64_t channels, int64_t length) const {
  const size_t n = static_cast<size_t>(channels * length);
  if (recorded_) {
    if (window < 0 || window >= static_cast<int64_t>(windows_.size()))
      throw NoiseError("recorded noise: no window " + std::to_string(window) + " (" +
                       std::to_string(windows_.size()) + " recorded)");
    const auto& w = windows_[static_cast<size_t>(window)];
    if (w.size() != n)
      throw NoiseError("recorded noise: window " + std::to_string(window) + " holds " + std::to_string(w.size()) +
                       " values, the window needs " + std::to_string(channels) + " x " + std::to_string(length));
    return w;
  }
  std::vector<bf16> out(n);
  for (size_t i = 0; i < n; ++i) out[i] = to_bf16(normal_draw(seed_, static_cast<uint64_t>(window), i));
  return out;
}

}  // namespace music3::acoustic
