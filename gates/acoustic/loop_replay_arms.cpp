#include "gates/acoustic/loop_replay_arms.h"

#include <algorithm>
#include <stdexcept>
#include <string>

#include "engine/models/music3/acoustic/acoustic_windows.h"
#include "gates/lib/ulp_stats.h"

namespace music3::gates {

void InputMismatch::add(const bf16* got, const bf16* expected, int64_t n) {
  ++calls;
  for (int64_t i = 0; i < n; ++i) {
    if (got[i].bits == expected[i].bits) continue;
    ++elements;
    const float r = to_f32(expected[i]), c = to_f32(got[i]);
    max_ulp = std::max(max_ulp, r == 0.0f ? double(std::abs(c)) / bf16_ulp(1.0f) : std::abs(double(c) - r) / bf16_ulp(r));
  }
}

std::vector<bf16> ReplayConditionEncoder::encode(const bf16* frames, int64_t n, int64_t latent_length) {
  if (calls_ >= int64_t(g_.windows.size()))
    throw std::out_of_range("replay condition encoder: call " + std::to_string(calls_) + " beyond the " +
                            std::to_string(g_.windows.size()) + " recorded windows");
  const LoopWindowGolden& w = g_.windows[size_t(calls_++)];
  const int64_t expected_n = acoustic::window_frames(w.start, g_.frames);
  if (n != expected_n || latent_length != w.length) {
    ++frames_.shape_errors;
  } else {
    frames_.add(frames, g_.frame_hiddens.data() + w.start * g_.frame_width, n * g_.frame_width);
  }
  return w.condition;
}

acoustic::VelocityPair ReplayDit::velocities(const bf16* x, int64_t length, bf16 t, const bf16* cond) {
  const int64_t window = calls_ / g_.steps, step = calls_ % g_.steps;
  if (window >= int64_t(g_.windows.size()))
    throw std::out_of_range("replay DiT: call " + std::to_string(calls_) + " beyond the recorded " +
                            std::to_string(g_.windows.size()) + " windows of " + std::to_string(g_.steps) + " steps");
  ++calls_;
  const LoopWindowGolden& w = g_.windows[size_t(window)];
  const int64_t n = g_.channels * w.length;
  if (length != w.length) {
    ++x_.shape_errors;
  } else {
    x_.add(x, w.dit_x.data() + step * n, n);
    cond_.add(cond, w.dit_condition.data(), w.length * g_.cond_channels);
  }
  t_.add(&t, &w.dit_t[size_t(step)], 1);
  return {std::vector<bf16>(w.v_cond.begin() + step * n, w.v_cond.begin() + (step + 1) * n),
          std::vector<bf16>(w.v_uncond.begin() + step * n, w.v_uncond.begin() + (step + 1) * n)};
}

}  // namespace music3::gates
