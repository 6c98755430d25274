// The ULP metric of the parity gates: robust statistics of bf16 ULP distances, so one
// cancelled element cannot hide a systematic shift nor fail a correct arm alone.
// Contract: each element is scored against its reference value r:
//  - r != 0: |c - r| / ulp(r), where ulp(r) is bf16's spacing at r (2^(e-8) for
//    |r| = m * 2^e, m in [0.5, 1); 2^-133 in the denormal range);
//  - r == 0 exactly has no ULP: such elements go to a separate bucket scored as |c|.
// The two buckets' counts always sum to the number compared (asserted by the gates),
// so a defect cannot hide by growing the ungated bucket. Non-finite candidates
// against finite references are counted separately (the canary). Statistics are
// robust: median, mean, p99, p99.9 and a magnitude-conditioned max (over |r| >=
// 0.25 * RMS(r)); the raw worst with its index is reported, not gated. Counts of the
// ULP bucket's elements that are exact (0 ULP) and within one ULP serve the op gates.
// Used by the component gates and the op gates (gates/ops); the vector overload throws
// std::invalid_argument naming both sizes when they differ.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/bf16.h"

namespace music3::gates {

struct UlpStats {
  size_t compared = 0;
  size_t nonzero_refs = 0;  // the ULP bucket
  size_t zero_refs = 0;     // the absolute bucket
  size_t nonfinite = 0;     // candidate not finite where the reference is
  double median = 0, mean = 0, p99 = 0, p999 = 0;
  double max_conditioned = 0;  // max ULP over |ref| >= 0.25 * RMS(ref)
  double worst = 0;            // raw max ULP (canary, not gated)
  size_t worst_index = 0;
  double zero_bucket_max_abs = 0;
  size_t exact = 0;       // ULP-bucket elements equal to their reference
  size_t within_one = 0;  // ULP-bucket elements within 1 ULP (exact included)

  std::string summary() const;
};

double bf16_ulp(float ref);
UlpStats ulp_stats(const bf16* candidate, const bf16* reference, size_t n);
UlpStats ulp_stats(const float* candidate, const float* reference, size_t n);  // f32 values, bf16 ULP scale
UlpStats ulp_stats(const std::vector<bf16>& candidate, const std::vector<bf16>& reference);

}  // namespace music3::gates
