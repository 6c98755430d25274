// Numerics for the op tests: an f64 -> bf16 rounding with a single rounding (the
// reference side of every comparison), bf16 ULP scoring, deterministic random
// inputs, and bit views for exact comparisons.
// ULP of a bf16 value r != 0: with |r| = m * 2^e, m in [0.5, 1), one bf16 spacing
// is 2^(e-8). Elements whose reference is exactly 0 have no ULP: they are scored
// by absolute value in their own bucket, and the buckets always sum to the total.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/bf16.h"

namespace music3::optest {

bf16 bf16_from_f64(double v);  // round to nearest even, once, from the exact f64 value
double bf16_ulp(double ref);   // one bf16 spacing at |ref| (ref != 0)

struct UlpStats {
  int64_t total = 0;
  int64_t zero_refs = 0;         // references exactly 0 (scored by max_abs_at_zero)
  int64_t nonfinite = 0;         // candidates that are NaN or inf (never acceptable)
  int64_t exact = 0;             // ULP-scored elements equal to their reference
  int64_t within_one = 0;        // ULP-scored elements within 1 ULP (exact included)
  double max_ulp = 0;            // raw maximum over ULP-scored elements (a canary)
  int64_t max_ulp_index = -1;
  double max_ulp_large = 0;      // maximum over elements with |ref| >= 0.25 * RMS(ref)
  double mean_ulp = 0;
  double max_abs_at_zero = 0;
  int64_t ulp_scored() const { return total - zero_refs - nonfinite; }
  std::string str() const;
};

UlpStats ulp_stats(const std::vector<bf16>& got, const std::vector<bf16>& ref);

// Prints "[ulp] <what>: <stats>" and records it as a property of the running test
// (in --gtest_output=xml reports), so measured figures travel with every run.
void report(const std::string& what, const UlpStats& s);

std::vector<bf16> random_bf16(size_t n, uint64_t seed, double stddev);
std::vector<float> random_f32(size_t n, uint64_t seed, double stddev);
std::vector<uint16_t> bits(const std::vector<bf16>& v);
std::vector<uint32_t> bits(const std::vector<float>& v);

}  // namespace music3::optest
