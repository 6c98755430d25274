#include "engine/models/music3/acoustic/condition_encoder_host_arm.h"

#include <algorithm>
#include <cmath>
#include <stdexcept>
#include <string>

#include "engine/models/music3/acoustic/dit_host_math.h"

namespace music3::acoustic {

int64_t nearest_source(int64_t j, int64_t n, int64_t latent_length) {
  if (latent_length == n) return j;
  if (latent_length == 2 * n) return j >> 1;
  const float scale = float(n) / float(latent_length);
  return std::min<int64_t>(static_cast<int64_t>(std::floor(float(j) * scale)), n - 1);
}

std::vector<bf16> condition_layer_mix(const ConditionEncoderWeights& w, const bf16* frames, int64_t n) {
  const auto& c = w.cfg;
  const int64_t H = c.hidden, width = c.frame_width();
  // 1. softmax of the logits in f32, rounded to the model dtype.
  std::vector<float> e(size_t(c.layers)), wl(size_t(c.layers));
  float mx = -INFINITY, sum = 0.0f;
  for (int l = 0; l < c.layers; ++l) mx = std::max(mx, to_f32(w.logits.ptr()[l]));
  for (int l = 0; l < c.layers; ++l) sum += (e[size_t(l)] = std::exp(to_f32(w.logits.ptr()[l]) - mx));
  for (int l = 0; l < c.layers; ++l) wl[size_t(l)] = round_bf16(e[size_t(l)] / sum);
  // 2-3. the layer mix, one rounding, then layer_scale; laid out [hidden][n] for the conv.
  const float scale = to_f32(w.scale.ptr()[0]);
  std::vector<bf16> mix(size_t(H * n));
  for (int64_t t = 0; t < n; ++t)
    for (int64_t h = 0; h < H; ++h) {
      float acc = 0.0f;
      for (int l = 0; l < c.layers; ++l) acc += to_f32(frames[t * width + l * H + h]) * wl[size_t(l)];
      mix[size_t(h * n + t)] = to_bf16(scale * round_bf16(acc));
    }
  return mix;
}

std::vector<bf16> condition_resample(const bf16* proj, int64_t out_dim, int64_t n, int64_t latent_length) {
  std::vector<bf16> out(size_t(latent_length) * size_t(out_dim));
  for (int64_t j = 0; j < latent_length; ++j) {
    const int64_t src = nearest_source(j, n, latent_length);
    for (int64_t o = 0; o < out_dim; ++o) out[size_t(j * out_dim + o)] = proj[size_t(o * n + src)];
  }
  return out;
}

std::vector<bf16> ConditionEncoderHostArm::encode(const bf16* frames, int64_t n, int64_t latent_length) {
  const auto& c = w_.cfg;
  if (n < 1 || latent_length < 1)
    throw std::invalid_argument("condition encoder: " + std::to_string(n) + " frames to " +
                                std::to_string(latent_length) + " latents");
  const std::vector<bf16> mix = condition_layer_mix(w_, frames, n);
  // 4. the k3 projection.
  std::vector<bf16> proj(size_t(c.out_dim) * size_t(n));
  host::conv_taps(mix.data(), c.hidden, n, w_.proj_w.ptr(), c.out_dim, ConditionEncoderConfig::kKernel,
                  w_.proj_b.ptr(), proj.data(), threads_);
  // 5. nearest resample and transpose.
  std::vector<bf16> out = condition_resample(proj.data(), c.out_dim, n, latent_length);
  ++forwards_;
  return out;
}

}  // namespace music3::acoustic
