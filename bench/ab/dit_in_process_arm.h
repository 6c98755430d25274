// The in-process DiT arm: this binary's DiT (make_dit_arm) on a queue, from seeded synthetic weights at a named
// geometry (acoustic_synthetic.h), one guided Euler step's denoiser call per timed frame: velocities() returns
// both branches (the condition and the all-zero condition), which is what the window loop calls per step.
// Spec: dit:ARM:DEVICE[:GEOMETRY[:LENGTH]] (ARM auto|host|device, DEVICE cpu|cuda, GEOMETRY full|mid|tiny,
// LENGTH the latent length, default 689: the release's 200-frame window).
// Contract: the selector must choose the requested arm (else the constructor throws naming both); frames cycle over
// 4 seeded (x, condition, t) inputs; each frame is timed with the host clock around velocities(), which returns
// only after both velocities are on the host, so the uploads and downloads are included.
// Spec dit-loop:...: each frame is one window of 30 steps as the window loop runs it (run_steps: the arm's own loop,
// the 172-latent overlap re-noised every step, guidance and the Euler update included; one upload and one read-back
// per window), timed with the host clock around the call and reported per step; an arm without a loop of its own
// is refused.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "bench/ab/arm.h"
#include "engine/models/music3/acoustic/acoustic_arms.h"
#include "engine/models/music3/acoustic/dit_weights.h"
#include "engine/runtime/arm.h"

namespace music3::bench {

class InProcessDitArm final : public Arm {
 public:
  InProcessDitArm(const std::string& spec, const std::string& arm, const std::string& device,
                  const std::string& geometry, int64_t length, bool window_loop, const ArmContext& ctx);
  std::vector<double> run_repetition(int warmup, int frames) override;
  nlohmann::json describe() const override;
  std::string gated_binary() const override { return self_executable(); }

 private:
  struct Input {
    std::vector<bf16> x, cond;
    bf16 t;
  };
  double run_one_frame();
  double run_one_window();
  acoustic::WindowSteps window_steps(const Input& in) const;  // a window of `in` with the release's overlap

  std::string spec_, geometry_;
  int64_t length_;
  bool window_loop_;
  int64_t overlap_ = 0;  // the latents re-noised every step (dit-loop)
  std::vector<float> sigmas_;
  std::vector<bf16> noise_, carried_;
  uint64_t seed_;
  acoustic::DitWeights weights_;
  runtime::ArmInstruments instruments_;
  std::unique_ptr<acoustic::DitArm> arm_;
  std::vector<Input> inputs_;
  size_t next_ = 0;
};

}  // namespace music3::bench
