// What every vocoder arm offers: decode one window, count decodes, say which arm it is.
// Contract: decode(latents, length) takes one window's latents [latent_channels][length] bf16 (batch 1; channels
// 0..C/2-1 are the left stream) and returns [2][output_length(length)] bf16, left stream first. run_stage(s, in)
// runs one stage of vocoder_stages() (the code decode() runs for it) on both streams of `in` and returns its
// output; it throws std::invalid_argument when `in` does not have the stage's input width. It does not count as
// a forward. An arm is used by one thread at a time.
#pragma once
#include <cstdint>
#include <vector>

#include "engine/core/bf16.h"
#include "engine/models/music3/vocoder/vocoder_stages.h"
#include "engine/runtime/arm.h"

namespace music3::vocoder {

using runtime::ArmKind;

struct Waveform {
  int64_t samples = 0;     // per stream
  std::vector<bf16> data;  // [2][samples]: left, then right
};

class VocoderArm {
 public:
  virtual ~VocoderArm() = default;
  virtual Waveform decode(const bf16* latents, int64_t length) = 0;
  virtual StageTensor run_stage(const Stage& stage, const StageTensor& in) = 0;
  virtual int64_t forwards() const = 0;
  virtual ArmKind kind() const = 0;
};

}  // namespace music3::vocoder
