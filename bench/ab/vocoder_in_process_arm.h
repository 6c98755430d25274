// The in-process vocoder arm: this binary's vocoder (make_vocoder_arm) on a queue, from seeded synthetic weights
// at a named geometry (vocoder_synthetic.h), decoding one window of `latents` latents per timed frame.
// Spec: vocoder:ARM:DEVICE[:GEOMETRY[:LATENTS]] (ARM auto|host|device, DEVICE cpu|cuda, GEOMETRY full|mid|tiny,
// LATENTS default 689, the release's 200-frame window).
// Contract: the selector must choose the requested arm (else the constructor throws naming both); frames cycle
// over 4 seeded windows; each frame is timed with the host clock around decode(), which returns only after the
// waveform is on the host, so the latents' upload and the waveform's download are included.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "bench/ab/arm.h"
#include "engine/models/music3/vocoder/vocoder_arm.h"
#include "engine/models/music3/vocoder/vocoder_weights.h"

namespace music3::bench {

class InProcessVocoderArm final : public Arm {
 public:
  InProcessVocoderArm(const std::string& spec, const std::string& arm, const std::string& device,
                      const std::string& geometry, int64_t latents, const ArmContext& ctx);
  std::vector<double> run_repetition(int warmup, int frames) override;
  nlohmann::json describe() const override;
  std::string gated_binary() const override { return self_executable(); }

 private:
  double run_one_frame();

  std::string spec_, geometry_;
  int64_t latents_;
  uint64_t seed_;
  vocoder::VocoderWeights weights_;
  std::unique_ptr<vocoder::VocoderArm> arm_;
  std::vector<std::vector<bf16>> windows_;
  uint64_t next_ = 0;
};

}  // namespace music3::bench
