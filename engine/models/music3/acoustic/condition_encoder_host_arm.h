// The condition encoder's host arm: upstream's MiniMaxMusic3ConditionEncoder.forward at PyTorch's CPU bf16
// rounding points.
// Contract: encode(frames, n, L) takes one window's frame_hiddens [n][layers * hidden] bf16 (row j = the layers'
// hiddens side by side) and returns the condition [L][out_dim] bf16:
//  1. w = bf16(softmax(layer_weight_logits)), the softmax in f32 (max, exp, sum in order, then e / sum);
//  2. mix[h][t] = bf16(sum_l x_l[h][t] * w_l): one f32 sum over the layers in order, one rounding (the einsum);
//  3. mix = bf16(layer_scale * mix);
//  4. proj: Conv1d(hidden, out_dim, 3, padding 1) with bias (host::conv_taps);
//  5. nearest resample to L: row j takes column min(floor(float(j) * (float(n) / float(L))), n - 1) in f32, as
//     F.interpolate(mode="nearest") does; transposed to [L][out_dim].
// Same inputs give the same bits whatever `threads`. forwards() counts encode calls. One instance is used by one
// thread at a time; the weights must outlive it.
#pragma once
#include "engine/models/music3/acoustic/acoustic_arms.h"
#include "engine/models/music3/acoustic/condition_encoder_weights.h"

namespace music3::acoustic {

// The input column that latent j reads (upstream's float32 nearest rule).
int64_t nearest_source(int64_t j, int64_t n, int64_t latent_length);
// Steps 1-3 of encode(): the layer mix with layer_scale, laid out [hidden][n] for the conv.
std::vector<bf16> condition_layer_mix(const ConditionEncoderWeights& w, const bf16* frames, int64_t n);
// Step 5: proj [out_dim][n] resampled to latent_length and transposed to [latent_length][out_dim].
std::vector<bf16> condition_resample(const bf16* proj, int64_t out_dim, int64_t n, int64_t latent_length);

class ConditionEncoderHostArm : public ConditionEncoderArm {
 public:
  ConditionEncoderHostArm(const ConditionEncoderWeights& w, int threads) : w_(w), threads_(threads) {}
  std::vector<bf16> encode(const bf16* frames, int64_t n, int64_t latent_length) override;
  int64_t cond_channels() const override { return w_.cfg.out_dim; }
  int64_t forwards() const override { return forwards_; }
  ArmKind kind() const override { return ArmKind::Host; }

 private:
  const ConditionEncoderWeights& w_;
  int threads_;
  int64_t forwards_ = 0;
};

}  // namespace music3::acoustic
