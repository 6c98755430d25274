// A build's `music3 depth --json` as an arm (the two-build mode times one per build).
// Contract: each repetition starts one process: `PATH depth --synthetic GEOMETRY --device
// DEVICE --arm ARM --frames W+N --seed S --json`, which must exit 0; the frames after the
// first W give the repetition's times (the CLI times each run_frame with the host clock).
// Process start and weight synthesis are outside the timed frames. gated_binary() is PATH.
#pragma once
#include <string>

#include "bench/ab/arm.h"

namespace music3::bench {

class Music3CliArm final : public Arm {
 public:
  Music3CliArm(const std::string& spec, const std::string& binary, const std::string& arm, const std::string& device,
               const std::string& geometry, const ArmContext& ctx);
  std::vector<double> run_repetition(int warmup, int frames) override;
  nlohmann::json describe() const override;
  std::string gated_binary() const override { return binary_; }

 private:
  std::string spec_, binary_, arm_, device_, geometry_;
  uint64_t seed_;
  int threads_;
  nlohmann::json last_run_;  // the last process's JSON without its frames
};

}  // namespace music3::bench
