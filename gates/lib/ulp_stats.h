// The ULP metric of the parity gates: robust statistics of ULP distances, so
// one cancelled element cannot hide a systematic shift nor fail a correct arm
// alone. Contract: each element is scored against its reference value r, in the
// ULPs of the output's own format (UlpScale: bf16 outputs in bf16 ULPs, f32
// outputs in f32 ULPs, stated at every f32 call site):
//  - r != 0: |c - r| / ulp(r), where ulp(r) is the format's spacing at r (bf16:
//    2^(e-8), f32: 2^(e-24), for |r| = m * 2^e, m in [0.5, 1); the spacing of
//    the smallest normal in the denormal range);
//  - r == 0 exactly has no ULP of its own: such elements form the zero bucket,
//  scored
//    as |c| / ulp(RMS(r)) (ULPs of a typical element of the tensor) and bounded
//    by UlpBounds::zero_max, so a defect that writes where the reference is
//    zero is seen.
// The two buckets' counts always sum to the number compared (asserted by the
// gates), so a defect cannot hide by growing either bucket. Non-finite
// candidates against finite references are counted separately (the canary).
// Statistics are robust: median, mean, p99, p99.9 and a magnitude-conditioned
// max (over |r| >= 0.25 * RMS(r)); the raw worst with its index is reported,
// not gated. Counts of the ULP bucket's elements that are exact (0 ULP) and
// within one ULP serve the op gates. Rows: ulp_stats_rows() scores each row of
// a tensor on its own (a CFG row, a batch row), element i belonging to row (i /
// width) % rows, so a defect confined to one row cannot be diluted by the
// others; it throws std::invalid_argument when the size is not a multiple of
// rows * width. The vector overload throws naming both sizes when they differ.
// differing_bits(a, b): the elements whose bits differ, for gates that demand bit identity (bf16 has no operator==,
// and equal values are not equal bits for NaN and ±0); every element counts when the sizes differ (the larger size).
// Thread-safety: pure functions.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/bf16.h"

namespace music3::gates {

enum class UlpScale { Bf16, F32 };

struct UlpStats {
  size_t compared = 0;
  size_t nonzero_refs = 0;  // the ULP bucket
  size_t zero_refs = 0;     // the zero bucket
  size_t nonfinite = 0;     // candidate not finite where the reference is
  double median = 0, mean = 0, p99 = 0, p999 = 0;
  double max_conditioned = 0;  // max ULP over |ref| >= 0.25 * RMS(ref)
  double worst = 0;            // raw max ULP (canary, not gated)
  size_t worst_index = 0;
  double zero_max = 0;             // zero bucket: max |c| / ulp(RMS(ref)) (gated)
  double zero_bucket_max_abs = 0;  // zero bucket: max |c|
  size_t exact = 0;                // ULP-bucket elements equal to their reference
  size_t within_one = 0;           // ULP-bucket elements within 1 ULP (exact included)

  std::string summary() const;
};

double bf16_ulp(float ref);
double f32_ulp(float ref);
UlpStats ulp_stats(const bf16* candidate, const bf16* reference, size_t n);
UlpStats ulp_stats(const float* candidate, const float* reference, size_t n, UlpScale scale);
UlpStats ulp_stats(const std::vector<bf16>& candidate, const std::vector<bf16>& reference);

std::vector<UlpStats> ulp_stats_rows(const bf16* candidate, const bf16* reference, size_t n, size_t rows, size_t width);
std::vector<UlpStats> ulp_stats_rows(const float* candidate, const float* reference, size_t n, size_t rows,
                                     size_t width, UlpScale scale);

int64_t differing_bits(const std::vector<bf16>& a, const std::vector<bf16>& b);

}  // namespace music3::gates
