#include "gates/lib/ulp_stats.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <stdexcept>

namespace music3::gates {

namespace {
// Spacing of a format with `digits` significand bits (implicit bit included) at
// `ref`.
double format_ulp(float ref, int digits) {
  const double a = std::fabs(static_cast<double>(ref));
  if (a < std::ldexp(1.0, -126)) return std::ldexp(1.0, -126 - (digits - 1));
  int e = 0;
  std::frexp(a, &e);  // a = m * 2^e, m in [0.5, 1)
  return std::ldexp(1.0, e - digits);
}
}  // namespace

double bf16_ulp(float ref) { return format_ulp(ref, 8); }
double f32_ulp(float ref) { return format_ulp(ref, 24); }

namespace {
double quantile(const std::vector<double>& sorted, double q) {
  if (sorted.empty()) return 0;
  const size_t i = static_cast<size_t>(std::ceil(q * static_cast<double>(sorted.size()))) - 1;
  return sorted[std::min(i, sorted.size() - 1)];
}

// Element j of the scored set is get(j) = {candidate, reference}; `index(j)` is
// its position in the caller's tensor (reported as worst_index).
template <class Get, class Index>
UlpStats compute(size_t n, Get get, Index index, UlpScale scale) {
  const auto ulp = scale == UlpScale::F32 ? f32_ulp : bf16_ulp;
  UlpStats s;
  s.compared = n;
  double sumsq = 0;
  for (size_t i = 0; i < n; ++i) {
    const float r = get(i).second;
    sumsq += double(r) * double(r);
  }
  const double rms = n ? std::sqrt(sumsq / double(n)) : 0;
  const double zero_unit = ulp(static_cast<float>(rms));
  std::vector<double> scores;
  scores.reserve(n);
  double sum = 0;
  for (size_t i = 0; i < n; ++i) {
    const auto [c, r] = get(i);
    if (!std::isfinite(r)) continue;  // references are finite by construction; counted nowhere else
    if (!std::isfinite(c)) {
      ++s.nonfinite;
      s.worst = INFINITY;
      s.worst_index = index(i);
      continue;
    }
    if (r == 0.0f) {
      ++s.zero_refs;
      s.zero_bucket_max_abs = std::max(s.zero_bucket_max_abs, std::fabs(double(c)));
      s.zero_max = std::max(s.zero_max, std::fabs(double(c)) / zero_unit);
      continue;
    }
    ++s.nonzero_refs;
    const double u = std::fabs(double(c) - double(r)) / ulp(r);
    scores.push_back(u);
    sum += u;
    s.exact += u == 0;
    s.within_one += u <= 1;
    if (u > s.worst && std::isfinite(s.worst)) {
      s.worst = u;
      s.worst_index = index(i);
    }
    if (std::fabs(double(r)) >= 0.25 * rms) s.max_conditioned = std::max(s.max_conditioned, u);
  }
  std::sort(scores.begin(), scores.end());
  s.mean = scores.empty() ? 0 : sum / double(scores.size());
  s.median = quantile(scores, 0.5);
  s.p99 = quantile(scores, 0.99);
  s.p999 = quantile(scores, 0.999);
  return s;
}

size_t identity(size_t i) { return i; }

float as_f32(bf16 v) { return to_f32(v); }
float as_f32(float v) { return v; }

template <class T>
std::vector<UlpStats> by_row(const T* c, const T* r, size_t n, size_t rows, size_t width, UlpScale scale) {
  if (rows == 0 || width == 0 || n % (rows * width) != 0)
    throw std::invalid_argument("ulp_stats_rows: " + std::to_string(n) + " elements are not a whole number of " +
                                std::to_string(rows) + " rows of " + std::to_string(width));
  const size_t blocks = n / (rows * width);
  std::vector<UlpStats> out;
  for (size_t row = 0; row < rows; ++row) {
    // j-th element of this row: block j / width, offset j % width.
    const auto index = [&](size_t j) { return (j / width * rows + row) * width + j % width; };
    out.push_back(compute(
        blocks * width, [&](size_t j) { return std::pair<float, float>(as_f32(c[index(j)]), as_f32(r[index(j)])); },
        index, scale));
  }
  return out;
}
}  // namespace

UlpStats ulp_stats(const bf16* c, const bf16* r, size_t n) {
  return compute(
      n, [&](size_t i) { return std::pair<float, float>(to_f32(c[i]), to_f32(r[i])); }, identity, UlpScale::Bf16);
}

UlpStats ulp_stats(const float* c, const float* r, size_t n, UlpScale scale) {
  return compute(
      n, [&](size_t i) { return std::pair<float, float>(c[i], r[i]); }, identity, scale);
}

UlpStats ulp_stats(const std::vector<bf16>& c, const std::vector<bf16>& r) {
  if (c.size() != r.size())
    throw std::invalid_argument("ulp_stats: candidate has " + std::to_string(c.size()) + " elements, reference has " +
                                std::to_string(r.size()));
  return ulp_stats(c.data(), r.data(), r.size());
}

std::vector<UlpStats> ulp_stats_rows(const bf16* c, const bf16* r, size_t n, size_t rows, size_t width) {
  return by_row(c, r, n, rows, width, UlpScale::Bf16);
}

std::vector<UlpStats> ulp_stats_rows(const float* c, const float* r, size_t n, size_t rows, size_t width,
                                     UlpScale scale) {
  return by_row(c, r, n, rows, width, scale);
}

int64_t differing_bits(const std::vector<bf16>& a, const std::vector<bf16>& b) {
  if (a.size() != b.size()) return int64_t(std::max(a.size(), b.size()));
  int64_t n = 0;
  for (size_t i = 0; i < a.size(); ++i) n += a[i].bits != b[i].bits;
  return n;
}

std::string UlpStats::summary() const {
  char buf[512];
  std::snprintf(buf, sizeof buf,
                "n=%zu (ulp %zu + zero %zu, nonfinite %zu) median=%.3g "
                "mean=%.4g p99=%.4g p99.9=%.4g "
                "max|r|>=.25rms=%.4g worst=%.4g@%zu zero_max=%.3g (abs %.3g) "
                "exact=%zu within1=%zu",
                compared, nonzero_refs, zero_refs, nonfinite, median, mean, p99, p999, max_conditioned, worst,
                worst_index, zero_max, zero_bucket_max_abs, exact, within_one);
  return buf;
}

}  // namespace music3::gates
