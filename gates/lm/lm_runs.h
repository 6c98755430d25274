// Runs the production AR stage (ArStage) over an LM oracle case.
// Contract: with `replay` the golden's recorded Exp(1) draws (LM and depth) are
// injected; with `teacher` the golden's tokens and codes are fed back, so every LM step
// and depth frame sees upstream's inputs and the per-iteration traces are comparable;
// otherwise the engine's own generator keyed by `seed` draws. max_frames is the golden's.
// Untraced (traced = false) the loop asks the arm for each sample alone (LmArm::sample_last),
// and `trace` stays empty; ignore_eos is ArOptions' benchmarking switch.
#pragma once
#include <cstdint>
#include <memory>

#include "engine/core/queue.h"
#include "engine/models/music3/ar/ar_stage.h"
#include "gates/lm/lm_oracle.h"

namespace music3::gates {

struct LmRunOptions {
  runtime::ArmRequest request = runtime::ArmRequest::Auto;
  bool replay = true;
  bool teacher = true;
  uint64_t seed = 0;
  bool traced = true;
  bool ignore_eos = false;
};

struct LmRun {
  ar::ArResult result;
  ar::ArTrace trace;
  runtime::ArmInstruments lm_instruments;
  uint64_t depth_frames = 0;
};

std::unique_ptr<ar::ArStage> make_stage(const LmCase& c, const Queue& q, runtime::ArmRequest request);
LmRun run_lm_case(const LmCase& c, const LmGolden& g, const Queue& q, const LmRunOptions& o);

}  // namespace music3::gates
