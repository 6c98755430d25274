// The in-process arm: this binary's DepthEngine on a queue, from seeded synthetic weights
// at a named geometry, as `music3 depth --synthetic` runs it.
// Contract: the engine's selector must choose the requested arm (else the constructor
// throws naming both); frames cycle over 8 seeded inputs and draw from the seeded
// generator; each frame is timed with the host clock around run_frame, which returns
// only after the codes are on the host, so everything the frame does is included.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "bench/ab/arm.h"
#include "engine/core/bf16.h"
#include "engine/models/music3/depth/depth_engine.h"

namespace music3::bench {

class InProcessDepthArm final : public Arm {
 public:
  InProcessDepthArm(const std::string& spec, const std::string& arm, const std::string& device,
                    const std::string& geometry, const ArmContext& ctx);
  std::vector<double> run_repetition(int warmup, int frames) override;
  nlohmann::json describe() const override;
  std::string gated_binary() const override { return self_executable(); }

 private:
  double run_one_frame();

  std::string spec_, geometry_;
  uint64_t seed_;
  std::unique_ptr<depth::DepthEngine> engine_;
  std::vector<bf16> last_hidden_, c0_;
  uint64_t next_frame_ = 0;
};

}  // namespace music3::bench
