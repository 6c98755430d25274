// The condition encoder's device arm: the k3 projection (the encoder's only heavy product) on the op seam, the
// rest on the host around it.
// Contract: encode() returns what ConditionEncoderHostArm::encode() does up to the conv's summation order:
// condition_layer_mix() on the host (the f32 softmax, the one-rounding layer mix, layer_scale: an 8-term weighted
// sum over the window's frames), uploaded as [1, hidden, n]; ops::conv1d (Conv1d(hidden, out_dim, 3, padding 1)
// with bias) on the queue's device; the result [out_dim][n] downloaded and condition_resample()d on the host (the
// float32 nearest rule and the transpose). Staging copies proj.weight once, re-laid tap-major [3, out_dim,
// hidden] as Conv1d takes it, and proj.bias; a window of a new frame count draws its buffers from the device pool
// (input, padded input, output bf16; the f32 accumulator aux). Counters: device_forwards moves by one per
// encode(); resident_dtypes holds BF16 alone, aux_dtypes F32.
// Thread-safety: one thread at a time (it owns its queue's buffers).
#pragma once
#include <memory>
#include <span>
#include <vector>

#include "engine/core/device_pool.h"
#include "engine/core/queue.h"
#include "engine/models/music3/acoustic/acoustic_arms.h"
#include "engine/models/music3/acoustic/condition_encoder_weights.h"
#include "engine/ops/registry.h"
#include "engine/runtime/resident_set.h"

namespace music3::acoustic {

class ConditionEncoderDeviceArm final : public ConditionEncoderArm {
 public:
  ConditionEncoderDeviceArm(const ConditionEncoderWeights& w, const Queue& q, DevicePool& pool,
                            runtime::ArmInstruments& instruments);
  std::vector<bf16> encode(const bf16* frames, int64_t n, int64_t latent_length) override;
  int64_t cond_channels() const override { return w_.cfg.out_dim; }
  int64_t forwards() const override { return forwards_; }
  ArmKind kind() const override { return ArmKind::Device; }
  static std::span<const ops::OpId> ops();

 private:
  void size_for(int64_t n);

  const ConditionEncoderWeights& w_;
  Queue q_;
  DevicePool& pool_;
  runtime::ArmInstruments& ins_;
  runtime::ResidentSet held_;
  Tensor proj_w_, proj_b_;
  int64_t frames_ = 0;                // the frame count the window buffers hold
  std::unique_ptr<runtime::ResidentSet> window_;  // x, xpad, acc, out of one frame count
  Tensor x_, xpad_, acc_, out_;
  int64_t forwards_ = 0;
};

}  // namespace music3::acoustic
