#include "bench/stats/ab_stats.h"

#include <algorithm>
#include <cmath>
#include <map>
#include <sstream>
#include <stdexcept>

namespace music3::bench {
namespace {

void require_samples(const char* fn, const std::vector<double>& v, size_t at_least = 1) {
  if (v.size() < at_least)
    throw std::invalid_argument(std::string(fn) + ": needs at least " + std::to_string(at_least) + " samples, got " +
                                std::to_string(v.size()));
  for (size_t i = 0; i < v.size(); ++i)
    if (!std::isfinite(v[i]))
      throw std::invalid_argument(std::string(fn) + ": sample " + std::to_string(i) + " is not finite");
}

double sorted_quantile(const std::vector<double>& s, double q) {
  const double pos = q * static_cast<double>(s.size() - 1);
  const size_t lo = static_cast<size_t>(std::floor(pos));
  const size_t hi = std::min(lo + 1, s.size() - 1);
  return s[lo] + (s[hi] - s[lo]) * (pos - static_cast<double>(lo));
}

// Number of arrangements of m A-values and n B-values (no ties) with U_a = u, for all u.
std::vector<double> u_null_counts(int m, int n) {
  // f[i][j][u]: counts for i A's and j B's; the largest value is either an A (it beats
  // all j B's: u - j) or a B (it adds nothing).
  std::vector<std::vector<std::vector<double>>> f(
      static_cast<size_t>(m + 1), std::vector<std::vector<double>>(static_cast<size_t>(n + 1)));
  for (int i = 0; i <= m; ++i)
    for (int j = 0; j <= n; ++j) {
      auto& cell = f[size_t(i)][size_t(j)];
      cell.assign(static_cast<size_t>(i * j + 1), 0.0);
      if (i == 0 || j == 0) {
        cell[0] = 1;
        continue;
      }
      const auto& with_a = f[size_t(i - 1)][size_t(j)];
      const auto& with_b = f[size_t(i)][size_t(j - 1)];
      for (int u = 0; u <= i * j; ++u) {
        double c = 0;
        if (u - j >= 0 && size_t(u - j) < with_a.size()) c += with_a[size_t(u - j)];
        if (size_t(u) < with_b.size()) c += with_b[size_t(u)];
        cell[size_t(u)] = c;
      }
    }
  return f[size_t(m)][size_t(n)];
}

}  // namespace

uint64_t SplitMix64::next() {
  uint64_t z = (state_ += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

double median(std::vector<double> values) { return quantile(std::move(values), 0.5); }

double quantile(std::vector<double> values, double q) {
  require_samples("quantile", values);
  if (!(q >= 0 && q <= 1)) throw std::invalid_argument("quantile: q must lie in [0, 1], got " + std::to_string(q));
  std::sort(values.begin(), values.end());
  return sorted_quantile(values, q);
}

Interval bootstrap_median_ci(const std::vector<double>& values, const BootstrapOptions& o) {
  require_samples("bootstrap_median_ci", values);
  if (o.resamples < 2) throw std::invalid_argument("bootstrap_median_ci: resamples must be >= 2");
  if (!(o.level > 0 && o.level < 1)) throw std::invalid_argument("bootstrap_median_ci: level must lie in (0, 1)");
  SplitMix64 rng(o.seed);
  const size_t n = values.size();
  std::vector<double> resample(n), medians(static_cast<size_t>(o.resamples));
  for (auto& m : medians) {
    for (auto& x : resample) x = values[rng.index_below(n)];
    std::sort(resample.begin(), resample.end());
    m = sorted_quantile(resample, 0.5);
  }
  std::sort(medians.begin(), medians.end());
  return {sorted_quantile(medians, (1 - o.level) / 2), sorted_quantile(medians, (1 + o.level) / 2)};
}

std::vector<double> paired_ratios(const std::vector<double>& a, const std::vector<double>& b) {
  require_samples("paired_ratios (A)", a);
  require_samples("paired_ratios (B)", b);
  if (a.size() != b.size())
    throw std::invalid_argument("paired_ratios: A has " + std::to_string(a.size()) + " repetitions, B has " +
                                std::to_string(b.size()));
  std::vector<double> r(a.size());
  for (size_t i = 0; i < a.size(); ++i) {
    if (!(a[i] > 0)) throw std::invalid_argument("paired_ratios: A sample " + std::to_string(i) + " is not positive");
    r[i] = b[i] / a[i];
  }
  return r;
}

MannWhitney mann_whitney_u(const std::vector<double>& a, const std::vector<double>& b) {
  require_samples("mann_whitney_u (A)", a);
  require_samples("mann_whitney_u (B)", b);
  const double na = static_cast<double>(a.size()), nb = static_cast<double>(b.size()), n = na + nb;
  MannWhitney r;
  for (double x : a)
    for (double y : b) r.u_a += x > y ? 1.0 : (x == y ? 0.5 : 0.0);
  r.u_b = na * nb - r.u_a;

  std::map<double, int> multiplicity;
  for (double x : a) ++multiplicity[x];
  for (double y : b) ++multiplicity[y];
  double tie_term = 0;
  for (const auto& [value, t] : multiplicity) tie_term += double(t) * t * t - t;

  if (tie_term == 0 && a.size() + b.size() <= 40) {
    const auto counts = u_null_counts(static_cast<int>(a.size()), static_cast<int>(b.size()));
    double total = 0, at_most = 0;
    const double u_min = std::min(r.u_a, r.u_b);
    for (size_t u = 0; u < counts.size(); ++u) {
      total += counts[u];
      if (static_cast<double>(u) <= u_min) at_most += counts[u];
    }
    r.p_two_sided = std::min(1.0, 2.0 * at_most / total);
    r.exact = true;
    return r;
  }
  const double mu = na * nb / 2;
  const double sigma = std::sqrt(na * nb / 12.0 * ((n + 1) - tie_term / (n * (n - 1))));
  if (sigma == 0) {  // every value equal: no evidence either way
    r.p_two_sided = 1;
    return r;
  }
  const double z = (std::max(r.u_a, r.u_b) - mu - 0.5) / sigma;
  r.p_two_sided = std::clamp(std::erfc(z / std::sqrt(2.0)), 0.0, 1.0);  // 2 * P(Z > z)
  return r;
}

SplitNoise split_noise(const std::vector<double>& samples, const BootstrapOptions& o) {
  require_samples("split_noise", samples, 4);
  std::vector<double> ratios;
  for (size_t i = 0; i + 1 < samples.size(); i += 2) {
    if (!(samples[i] > 0)) throw std::invalid_argument("split_noise: sample " + std::to_string(i) + " is not positive");
    ratios.push_back(samples[i + 1] / samples[i]);
  }
  SplitNoise s;
  s.median_ratio = median(ratios);
  s.ci = bootstrap_median_ci(ratios, o);
  s.band = std::max(std::fabs(s.ci.lo - 1), std::fabs(s.ci.hi - 1));
  return s;
}

std::string verdict_name(Verdict v) {
  switch (v) {
    case Verdict::Same:
      return "SAME";
    case Verdict::Faster:
      return "FASTER";
    case Verdict::Slower:
      return "SLOWER";
    case Verdict::Refused:
      return "REFUSED: gates failed";
  }
  return "unknown verdict";
}

VerdictResult decide(const VerdictInputs& in) {
  std::ostringstream why;
  if (!in.gates_passed) return {Verdict::Refused, "the gates did not pass on every timed binary"};
  const double delta = in.ratio - 1;
  why << "ratio " << in.ratio << ", CI [" << in.ci.lo << ", " << in.ci.hi << "], noise band " << in.noise_band
      << ", p " << in.p_value << ": ";
  if (in.ci.contains(1.0)) return {Verdict::Same, why.str() + "the CI holds 1"};
  if (std::fabs(delta) <= in.noise_band) return {Verdict::Same, why.str() + "|ratio - 1| is within the noise band"};
  if (in.p_value >= in.alpha) return {Verdict::Same, why.str() + "the U test does not reject at alpha"};
  return {delta < 0 ? Verdict::Faster : Verdict::Slower, why.str() + "outside the noise and the CI"};
}

}  // namespace music3::bench
