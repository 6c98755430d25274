// The statistics of the A/B runner: medians and quantiles, a seeded bootstrap CI of
// the median of paired ratios, the two-sided Mann-Whitney U test, the A/A split noise
// band, and the verdict rule.
// Contract: every function is a pure function of its arguments (the bootstrap draws
// from a splitmix64 stream with a fixed seed and maps draws to indices without the
// standard library's distributions), so a report's numbers can be recomputed exactly
// from its raw samples on any machine. Empty, non-finite or mismatched inputs throw
// std::invalid_argument naming the function and the problem.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace music3::bench {

double median(std::vector<double> values);
// Linear interpolation between order statistics at position q*(n-1) (numpy's default).
double quantile(std::vector<double> values, double q);

struct Interval {
  double lo = 0, hi = 0;
  bool contains(double x) const { return lo <= x && x <= hi; }
};

struct BootstrapOptions {
  uint64_t seed = 20261117;
  int resamples = 10000;
  double level = 0.95;
};

// The splitmix64 stream the bootstrap draws from, and its index map:
// index = (draw * n) >> 64 (the high word of the 128-bit product).
class SplitMix64 {
 public:
  explicit SplitMix64(uint64_t seed) : state_(seed) {}
  uint64_t next();
  size_t index_below(size_t n) { return static_cast<size_t>((static_cast<unsigned __int128>(next()) * n) >> 64); }

 private:
  uint64_t state_;
};

// Percentile bootstrap of median(values): `resamples` resamples of n values drawn with
// replacement; the CI is the (1-level)/2 and (1+level)/2 quantiles of their medians.
Interval bootstrap_median_ci(const std::vector<double>& values, const BootstrapOptions& options = {});

// ratios[i] = b[i] / a[i]: repetition i of B over repetition i of A (sizes must match).
std::vector<double> paired_ratios(const std::vector<double>& a, const std::vector<double>& b);

struct MannWhitney {
  double u_a = 0;  // pairs (a_i, b_j) with a_i > b_j, ties counted one half
  double u_b = 0;  // n_a * n_b - u_a
  double p_two_sided = 1;
  bool exact = false;  // exact null distribution (no ties, n_a + n_b <= 40) or the normal approximation
};
// Two-sided test. Without ties and for n_a + n_b <= 40: p = min(1, 2 P(U <= min(u_a, u_b)))
// under the exact null distribution. Otherwise the normal approximation with the tie
// correction and a continuity correction of 1/2 (scipy.stats.mannwhitneyu's 'asymptotic').
MannWhitney mann_whitney_u(const std::vector<double>& a, const std::vector<double>& b);

// The A/A split of one arm's repetitions: pairs (s[2i], s[2i+1]), ratio s[2i+1] / s[2i].
// band = max(|ci.lo - 1|, |ci.hi - 1|): the largest relative difference the arm shows
// against itself at the bootstrap's level. Needs at least 4 samples (2 pairs).
struct SplitNoise {
  double median_ratio = 1;
  Interval ci;
  double band = 0;
};
SplitNoise split_noise(const std::vector<double>& samples, const BootstrapOptions& options = {});

enum class Verdict { Same, Faster, Slower, Refused };
std::string verdict_name(Verdict v);  // "SAME", "FASTER", "SLOWER", "REFUSED: gates failed"

struct VerdictInputs {
  double ratio = 1;        // median of B/A paired ratios (< 1: B is faster)
  Interval ci;             // its bootstrap CI
  double noise_band = 0;   // the smaller of the two arms' split bands (NVBench: the smaller noise)
  double p_value = 1;      // Mann-Whitney two-sided p
  bool gates_passed = false;
  double alpha = 0.05;
};
struct VerdictResult {
  Verdict verdict = Verdict::Refused;
  std::string reason;
};
// REFUSED unless the gates passed. Otherwise SAME when the CI holds 1, or |ratio - 1| is
// within the noise band, or p >= alpha; else FASTER (ratio < 1) or SLOWER.
VerdictResult decide(const VerdictInputs& in);

}  // namespace music3::bench
