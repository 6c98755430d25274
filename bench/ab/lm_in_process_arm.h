// The in-process LM arm: this binary's language model (select_lm_arm) on a queue, from seeded synthetic weights
// at a named geometry (bench/lm/lm_bench_weights.h), one LM step (decode() + head(), what the AR loop calls per
// iteration) per timed frame.
// Spec: lm:ARM:DEVICE[:GEOMETRY[:KV]] (ARM auto|host|device, DEVICE cpu|cuda, GEOMETRY full|small, KV the K/V
// length, default 300).
// Contract: the selector must choose the requested arm (else the constructor throws naming both); each repetition
// prefills KV positions (untimed), then runs warmup untimed and `frames` timed steps, so the K/V length runs from
// KV to KV + warmup + frames; each step is timed with the host clock around decode() and head(), which return only
// after the hiddens and logits are on the host.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "bench/ab/arm.h"
#include "engine/models/music3/lm/lm_arm.h"
#include "engine/models/music3/lm/lm_weights.h"

namespace music3::bench {

class InProcessLmArm final : public Arm {
 public:
  InProcessLmArm(const std::string& spec, const std::string& arm, const std::string& device,
                 const std::string& geometry, int kv, const ArmContext& ctx);
  std::vector<double> run_repetition(int warmup, int frames) override;
  nlohmann::json describe() const override;
  std::string gated_binary() const override { return self_executable(); }

 private:
  double run_one_step();

  std::string spec_, geometry_;
  int kv_;
  uint64_t seed_;
  lm::LmWeights weights_;
  runtime::ArmInstruments instruments_;
  std::unique_ptr<lm::LmArm> arm_;
  std::vector<bf16> prompt_, embeds_, last_, logits_;
};

}  // namespace music3::bench
