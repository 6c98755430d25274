// Runs the production depth path (DepthEngine) over an oracle golden's frames.
// Contract: with `replay` the golden's recorded Exp(1) draws are injected; with
// `forced` the golden's codes are fed back (teacher forcing), so every call sees
// the oracle's inputs and per-call outputs are comparable; otherwise the engine's
// own generator keyed by `seed` is used. Traces are concatenated frame after frame
// in the golden's layout ([F,S,2,H], [F,S,2,V], [F,S,V]). Thread-safe (no shared state).
#pragma once
#include <vector>

#include "engine/models/music3/depth/depth_engine.h"
#include "gates/depth/depth_oracle_cases.h"

namespace music3::gates {

struct CaseRun {
  std::vector<int32_t> codes;      // [F,S]
  std::vector<bf16> final_hidden;  // [F,S,2,H]
  std::vector<bf16> head_logits;   // [F,S,2,V]
  std::vector<float> guided;       // [F,S,V]
  depth::DepthInstruments instruments;
  depth::ArmKind arm = depth::ArmKind::Host;
};

struct RunOptions {
  depth::ArmRequest request = depth::ArmRequest::Auto;
  bool replay = true;
  bool forced = true;
  uint64_t seed = 0;
};

CaseRun run_case(const OracleCase& c, const OracleGolden& g, const Queue& q, const RunOptions& o);

}  // namespace music3::gates
