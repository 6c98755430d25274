#include "gates/lib/code_agreement.h"

#include "gates/lib/near_tie.h"

namespace music3::gates {

CodeAgreement compare_codes(const int32_t* codes_a, const float* guided_a, const int32_t* codes_b,
                            const float* guided_b, const float* draws, int64_t frames, int steps, int vocab) {
  CodeAgreement t;
  t.comparable_steps.assign(static_cast<size_t>(frames), steps);
  for (int64_t f = 0; f < frames; ++f)
    for (int s = 0; s < steps; ++s) {
      const size_t i = size_t(f) * size_t(steps) + size_t(s);
      ++t.compared;
      if (codes_a[i] == codes_b[i]) {
        ++t.equal;
        continue;
      }
      const size_t row = i * size_t(vocab);
      if (shared_near_tie(guided_a + row, guided_b + row, draws + row, codes_a[i], codes_b[i])) {
        ++t.near_ties;
      } else {
        ++t.defects;
        t.defects_found.push_back("frame " + std::to_string(f) + " step " + std::to_string(s) + ": code " +
                                  std::to_string(codes_a[i]) + " vs " + std::to_string(codes_b[i]) +
                                  " is not a shared near-tie");
      }
      t.comparable_steps[size_t(f)] = s + 1;
      break;
    }
  return t;
}

}  // namespace music3::gates
