#include "gates/ops/support/numerics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>
#include <sstream>

namespace music3::optest {

bf16 bf16_from_f64(double v) {
  // f64 -> f32 rounds to nearest; it can only create a false bf16 tie (low half
  // exactly 0x8000 while v is not on it). Then step one f32 ulp toward v first.
  float f = static_cast<float>(v);
  uint32_t u = f32_bits(f);
  if ((u & 0xFFFFu) == 0x8000u && static_cast<double>(f) != v)
    u = std::fabs(v) > std::fabs(static_cast<double>(f)) ? u + 1 : u - 1;
  return to_bf16(f32_from_bits(u));
}

double bf16_ulp(double ref) {
  int e = 0;
  std::frexp(ref, &e);
  return std::ldexp(1.0, e - 8);
}

UlpStats ulp_stats(const std::vector<bf16>& got, const std::vector<bf16>& ref) {
  UlpStats s;
  s.total = static_cast<int64_t>(got.size());
  double sumsq = 0;
  for (const bf16 r : ref) sumsq += static_cast<double>(to_f32(r)) * to_f32(r);
  const double large = 0.25 * std::sqrt(sumsq / static_cast<double>(ref.size()));
  double ulp_sum = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double g = to_f32(got[i]), r = to_f32(ref[i]);
    if (!std::isfinite(g)) {
      ++s.nonfinite;
      continue;
    }
    if (r == 0) {
      ++s.zero_refs;
      s.max_abs_at_zero = std::max(s.max_abs_at_zero, std::fabs(g));
      continue;
    }
    const double ulps = std::fabs(g - r) / bf16_ulp(r);
    s.exact += ulps == 0;
    s.within_one += ulps <= 1;
    ulp_sum += ulps;
    if (ulps > s.max_ulp) {
      s.max_ulp = ulps;
      s.max_ulp_index = static_cast<int64_t>(i);
    }
    if (std::fabs(r) >= large) s.max_ulp_large = std::max(s.max_ulp_large, ulps);
  }
  s.mean_ulp = s.ulp_scored() ? ulp_sum / static_cast<double>(s.ulp_scored()) : 0;
  return s;
}

std::string UlpStats::str() const {
  std::ostringstream o;
  o << "total " << total << " (zero refs " << zero_refs << ", non-finite " << nonfinite << "), exact " << exact
    << ", within 1 ulp " << within_one << ", mean " << mean_ulp << " ulp, max " << max_ulp << " ulp at "
    << max_ulp_index << ", max over |ref| >= 0.25 rms " << max_ulp_large << ", max |got| at zero refs "
    << max_abs_at_zero;
  return o.str();
}

void report(const std::string& what, const UlpStats& s) {
  std::printf("[ulp] %s: %s\n", what.c_str(), s.str().c_str());
  testing::Test::RecordProperty("ulp " + what, s.str());
}

std::vector<bf16> random_bf16(size_t n, uint64_t seed, double stddev) {
  std::mt19937_64 gen(seed);
  std::normal_distribution<double> dist(0.0, stddev);
  std::vector<bf16> v(n);
  for (auto& x : v) x = bf16_from_f64(dist(gen));
  return v;
}

std::vector<float> random_f32(size_t n, uint64_t seed, double stddev) {
  std::mt19937_64 gen(seed);
  std::normal_distribution<double> dist(0.0, stddev);
  std::vector<float> v(n);
  for (auto& x : v) x = static_cast<float>(dist(gen));
  return v;
}

std::vector<uint16_t> bits(const std::vector<bf16>& v) {
  std::vector<uint16_t> b(v.size());
  for (size_t i = 0; i < v.size(); ++i) b[i] = v[i].bits;
  return b;
}

std::vector<uint32_t> bits(const std::vector<float>& v) {
  std::vector<uint32_t> b(v.size());
  std::memcpy(b.data(), v.data(), v.size() * sizeof(float));
  return b;
}

}  // namespace music3::optest
