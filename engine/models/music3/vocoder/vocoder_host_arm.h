// The vocoder's host arm: upstream's forward at its bf16 rounding points (vocoder_host_math.h).
// Contract: decode(latents, length) takes one window's latents [latent_channels][length] bf16 (batch 1), splits
// them into two streams (channels 0..C/2-1 left, the rest right), decodes each through dec_in_proj, conv_in, the
// up-blocks (Snake, transposed conv with padding ceil(s/2), residual units with dilations 1, 3, 9 and the
// identity), Snake, conv_out and tanh (vocoder_stages(), one apply() each), and returns [2][cfg.output_length(length)] bf16. Same inputs give the
// same bits whatever `threads`. forwards() counts decode calls (an instrument the reachability gate reads).
// One instance is used by one thread at a time; the weights it refers to must outlive it.
#pragma once
#include <cstdint>
#include <vector>

#include "engine/models/music3/vocoder/vocoder_arm.h"
#include "engine/models/music3/vocoder/vocoder_host_math.h"
#include "engine/models/music3/vocoder/vocoder_weights.h"

namespace music3::vocoder {

class VocoderHostArm : public VocoderArm {
 public:
  VocoderHostArm(const VocoderWeights& weights, int threads) : w_(weights), threads_(threads) {}
  Waveform decode(const bf16* latents, int64_t length) override;
  StageTensor run_stage(const Stage& stage, const StageTensor& in) override;
  int64_t forwards() const override { return forwards_; }
  ArmKind kind() const override { return ArmKind::Host; }

 private:
  Activation decode_stream(const bf16* stream_latents, int64_t length) const;
  Activation apply(const Stage& stage, Activation x) const;

  const VocoderWeights& w_;
  int threads_;
  int64_t forwards_ = 0;
};

}  // namespace music3::vocoder
