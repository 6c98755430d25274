// Agreement of two samplers' codes over the same frames and the same Exp(1) draws.
// Contract: frame by frame, step by step, codes must be equal; a difference is allowed
// only at a shared near-tie (near_tie.h) and ends that frame's comparison, because the
// later steps of the frame follow a different code. Any other difference is a defect,
// described in `defects_found`. `comparable_steps[f]` counts the steps of frame f whose
// inputs were the same on both sides (through the first difference), so per-step
// traces can be compared over exactly those steps. Pure function; thread-safe.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace music3::gates {

struct CodeAgreement {
  int compared = 0, equal = 0, near_ties = 0, defects = 0;
  std::vector<int> comparable_steps;       // [frames]
  std::vector<std::string> defects_found;  // "frame F step S: code A vs B is not a shared near-tie"
};

// codes_*: [F,S]; guided_*: [F,S,V] each side's guided logits; draws: [F,S,V].
CodeAgreement compare_codes(const int32_t* codes_a, const float* guided_a, const int32_t* codes_b,
                            const float* guided_b, const float* draws, int64_t frames, int steps, int vocab);

}  // namespace music3::gates
