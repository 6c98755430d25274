#include "engine/models/music3/acoustic/acoustic_scheduler.h"

#include <stdexcept>
#include <string>

#include "engine/ops/flow_math.h"

namespace music3::acoustic {

std::vector<float> flow_sigmas(int steps) {
  if (steps < 1) throw std::invalid_argument("flow_sigmas: steps must be >= 1, got " + std::to_string(steps));
  const double start = 1.0, stop = 1.0 / double(steps);
  std::vector<float> sigmas(static_cast<size_t>(steps) + 1);
  const int div = steps - 1;
  const double step = div > 0 ? (stop - start) / double(div) : 0.0;
  for (int i = 0; i < steps; ++i) {
    double y = div > 0 ? double(i) * step : double(i) * (stop - start);
    y += start;
    if (div > 0 && i == steps - 1) y = stop;
    sigmas[static_cast<size_t>(i)] = 1.0f - static_cast<float>(y);
  }
  sigmas[static_cast<size_t>(steps)] = 1.0f;
  return sigmas;
}

bf16 timestep(const std::vector<float>& sigmas, int step) { return to_bf16(sigmas.at(static_cast<size_t>(step))); }

float euler_dt(const std::vector<float>& sigmas, int step) {
  return sigmas.at(static_cast<size_t>(step) + 1) - sigmas.at(static_cast<size_t>(step));
}

void euler_step(bf16* x, const bf16* v, int64_t n, float dt) {
  const float dt_bf16 = round_bf16(dt);
  for (int64_t i = 0; i < n; ++i) x[i] = to_bf16(flow::euler_update(to_f32(x[i]), to_f32(v[i]), dt_bf16));
}

}  // namespace music3::acoustic
