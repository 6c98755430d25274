#include "gates/ops/support/numerics.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <random>

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

void report(const std::string& what, const gates::UlpStats& s) {
  const std::string summary = s.summary();
  std::printf("[ulp] %s: %s\n", what.c_str(), summary.c_str());
  testing::Test::RecordProperty("ulp " + what, summary);
}

std::vector<bf16> normal_bf16(size_t n, uint64_t seed, double stddev) {
  std::mt19937_64 gen(seed);
  std::normal_distribution<double> dist(0.0, stddev);
  std::vector<bf16> v(n);
  for (auto& x : v) x = bf16_from_f64(dist(gen));
  return v;
}

std::vector<float> normal_f32(size_t n, uint64_t seed, double stddev) {
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
