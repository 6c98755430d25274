// The in-process `music3 generate` arm: this binary's whole pipeline (PipelineModels over a pipeline folder in the
// diffusers hub layout, run_generate: text, AR stage, windows overlapped with it, vocoder) with <|audio_end|>
// masked (GenerateRequest::ignore_eos, as `music3 generate --ignore-eos`), so every song runs exactly
// min(int(DURATION * 25), 9000) frames, like bench/pipeline/diffusers_pipeline_peer.py's songs (EOS masked).
// Spec: generate:ARM:DEVICE:CHECKPOINT[:DURATION[:STEPS]] (ARM auto|host|device or per stage, as generate --arm;
// DEVICE cpu|cuda; DURATION seconds, default 10; STEPS default 30). One timed "frame" is one whole song, so the
// A/B runner's ms/frame is ms per song (run it with --frames 1 --warmup 0; its discarded first repetition is the
// warm-up). The prompt and lyrics are the peer's; the seed is the runner's --seed, the same for every song.
// Contract: the models are loaded once (outside the timed songs); a song is timed with the host clock around
// run_generate(), which returns the stitched audio on the host (everything synchronised); a song that does not run
// the requested frames throws naming the spec. describe() reports the last song's stage seconds (AR, acoustic,
// vocoder, first window, after the AR loop) and the device pool's bytes. Not thread-safe (one run at a time).
#pragma once
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "bench/ab/arm.h"
#include "engine/models/music3/pipeline/generate_run.h"

namespace music3::bench {

class InProcessGenerateArm final : public Arm {
 public:
  InProcessGenerateArm(const std::string& spec, const std::string& arms, const std::string& device,
                       const std::string& checkpoint, double duration, int steps, const ArmContext& ctx);
  std::vector<double> run_repetition(int warmup, int frames) override;
  nlohmann::json describe() const override;
  std::string gated_binary() const override { return self_executable(); }

 private:
  double run_one_song();

  std::string spec_, checkpoint_;
  double duration_;
  int steps_;
  uint64_t seed_;
  double load_seconds_ = 0;
  std::unique_ptr<pipeline::PipelineModels> models_;
  nlohmann::json last_song_;
};

}  // namespace music3::bench
