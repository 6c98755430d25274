// core_bf16_test: to_bf16 / to_f32 / round_bf16 against an independent reference.
// The reference never shifts bits: it rounds |x| to the bf16 grid in long double
// arithmetic (frexpl/ldexpl, ties to even by hand) and builds the bf16 fields from
// the rounded value. Checked: every one of the 65536 bf16 patterns (exact widening,
// exact round trip), f32 inputs around every bf16 (exact, just above/below, ties),
// a pseudo-random f32 sweep, and the named edge cases (NaN, ±inf, ±0, denormals,
// ties to even, overflow to inf).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <sstream>

#include "engine/core/bf16.h"

namespace {

using music3::bf16;

constexpr int kMinNormalExp = -125;  // frexp exponent of 2^-126, the smallest normal

// The bf16 bit pattern nearest to f, ties to even, computed without bit tricks.
uint16_t reference_bf16(float f) {
  if (std::isnan(f)) return 0x7FC0;
  uint16_t sign = std::signbit(f) ? 0x8000 : 0;
  if (std::isinf(f)) return sign | 0x7F80;
  long double a = std::fabs(static_cast<long double>(f));
  if (a == 0) return sign;
  int e = 0;
  std::frexp(a, &e);                                  // a = m * 2^e, m in [0.5, 1)
  int quantum_exp = std::max(e, kMinNormalExp) - 8;  // 8 significant bits; fixed spacing below normals
  long double scaled = std::ldexp(a, -quantum_exp);   // exact: f has 24 significant bits
  long double n = std::floor(scaled);
  long double frac = scaled - n;
  if (frac > 0.5L || (frac == 0.5L && std::fmod(n, 2.0L) != 0)) n += 1;
  long double v = std::ldexp(n, quantum_exp);
  if (v >= std::ldexp(1.0L, 128)) return sign | 0x7F80;  // above the largest finite bf16
  if (v == 0) return sign;
  int ve = 0;
  long double vm = std::frexp(v, &ve);
  if (ve >= kMinNormalExp) {  // normal: v = (1 + mant/128) * 2^(ve-1)
    auto exponent = static_cast<uint16_t>(ve + 126);
    auto mant = static_cast<uint16_t>((vm * 2 - 1) * 128);
    return sign | static_cast<uint16_t>(exponent << 7) | mant;
  }
  return sign | static_cast<uint16_t>(std::ldexp(v, 133));  // subnormal: v = mant * 2^-133
}

// The value of a bf16 pattern, decoded field by field.
long double reference_value(uint16_t b) {
  int exponent = (b >> 7) & 0xFF, mant = b & 0x7F;
  long double sign = (b & 0x8000) ? -1.0L : 1.0L;
  if (exponent == 0) return sign * std::ldexp(static_cast<long double>(mant), -133);
  return sign * std::ldexp(static_cast<long double>(128 + mant), exponent - 127 - 7);
}

bool is_nan_pattern(uint16_t b) { return ((b >> 7) & 0xFF) == 0xFF && (b & 0x7F) != 0; }
bool is_inf_pattern(uint16_t b) { return ((b >> 7) & 0xFF) == 0xFF && (b & 0x7F) == 0; }

std::string hex(uint32_t v) {
  std::ostringstream s;
  s << "0x" << std::hex << v;
  return s.str();
}

// Compares to_bf16 with the reference on one input; counts and remembers mismatches.
struct Mismatches {
  int count = 0;
  std::ostringstream first;
  void check(uint32_t bits) {
    float f = std::bit_cast<float>(bits);
    uint16_t got = music3::to_bf16(f).bits, want = reference_bf16(f);
    if (got == want) return;
    if (count++ < 8) first << " f32 " << hex(bits) << " -> " << hex(got) << " (want " << hex(want) << ");";
  }
};

TEST(Bf16, WideningIsExactForEveryPattern) {
  int bad = 0;
  for (uint32_t b = 0; b < 0x10000; ++b) {
    auto p = static_cast<uint16_t>(b);
    float f = music3::to_f32(bf16{p});
    if (std::bit_cast<uint32_t>(f) != b << 16) ++bad;
    if (is_nan_pattern(p)) {
      if (!std::isnan(f)) ++bad;
    } else if (is_inf_pattern(p)) {
      if (!std::isinf(f) || std::signbit(f) != bool(p & 0x8000)) ++bad;
    } else if (static_cast<long double>(f) != reference_value(p) || std::signbit(f) != bool(p & 0x8000)) {
      ++bad;
    }
  }
  EXPECT_EQ(bad, 0);
}

TEST(Bf16, RoundTripIsExactForEveryNonNanPattern) {
  int bad = 0;
  std::ostringstream first;
  for (uint32_t b = 0; b < 0x10000; ++b) {
    auto p = static_cast<uint16_t>(b);
    uint16_t back = music3::to_bf16(music3::to_f32(bf16{p})).bits;
    uint16_t want = is_nan_pattern(p) ? 0x7FC0 : p;
    if (back != want && bad++ < 8) first << ' ' << hex(p) << " -> " << hex(back) << ';';
  }
  EXPECT_EQ(bad, 0) << first.str();
}

TEST(Bf16, MatchesReferenceAroundEveryPattern) {
  // Exact, one ulp above, just below the tie, the tie, just above the tie, the top.
  const uint32_t lows[] = {0x0000, 0x0001, 0x4000, 0x7FFF, 0x8000, 0x8001, 0xC000, 0xFFFF};
  Mismatches m;
  for (uint32_t hi = 0; hi < 0x10000; ++hi)
    for (uint32_t lo : lows) m.check(hi << 16 | lo);
  EXPECT_EQ(m.count, 0) << m.first.str();
}

TEST(Bf16, MatchesReferenceOnPseudoRandomSweep) {
  Mismatches m;
  uint64_t state = 0x9E3779B97F4A7C15ull;
  for (int i = 0; i < 2000000; ++i) {
    state = state * 6364136223846793005ull + 1442695040888963407ull;
    m.check(static_cast<uint32_t>(state >> 32));
  }
  EXPECT_EQ(m.count, 0) << m.first.str();
}

struct Case {
  uint32_t f32;
  uint16_t bf16;
  const char* what;
};

TEST(Bf16, NamedEdgeCases) {
  const Case cases[] = {
      {0x7FC00000, 0x7FC0, "quiet NaN"},
      {0xFFC00000, 0x7FC0, "negative NaN loses its sign"},
      {0x7F800001, 0x7FC0, "signalling NaN with a low payload"},
      {0x7FFFFFFF, 0x7FC0, "NaN with every payload bit"},
      {0x7F800000, 0x7F80, "+inf"},
      {0xFF800000, 0xFF80, "-inf"},
      {0x00000000, 0x0000, "+0"},
      {0x80000000, 0x8000, "-0"},
      {0x7F7FFFFF, 0x7F80, "FLT_MAX overflows to inf"},
      {0x7F7F8000, 0x7F80, "tie above the largest finite bf16 rounds to even = inf"},
      {0x7F7F7FFF, 0x7F7F, "just below that tie stays finite"},
      {0xFF7FFFFF, 0xFF80, "-FLT_MAX overflows to -inf"},
      {0x3F808000, 0x3F80, "1 + 2^-8 is a tie: rounds down to even"},
      {0x3F818000, 0x3F82, "(1 + 2^-7) + 2^-8 is a tie: rounds up to even"},
      {0x3F808001, 0x3F81, "above the tie rounds up"},
      {0x00000001, 0x0000, "smallest f32 denormal rounds to +0"},
      {0x80000001, 0x8000, "smallest negative denormal rounds to -0"},
      {0x00008000, 0x0000, "denormal tie rounds to even 0"},
      {0x00018000, 0x0002, "denormal tie rounds to even 2"},
      {0x00010000, 0x0001, "smallest bf16 denormal is exact"},
      {0x007F8000, 0x0080, "largest denormals round up into the normals"},
      {0x00800000, 0x0080, "smallest normal is exact"},
  };
  for (const auto& c : cases) {
    float f = std::bit_cast<float>(c.f32);
    EXPECT_EQ(music3::to_bf16(f).bits, c.bf16) << c.what << " (f32 " << hex(c.f32) << ")";
    EXPECT_EQ(reference_bf16(f), c.bf16) << "reference: " << c.what;
  }
}

TEST(Bf16, RoundBf16IsWidenOfNarrow) {
  EXPECT_EQ(music3::round_bf16(1.00390625f), 1.0f);  // the tie 1 + 2^-8 goes to even
  EXPECT_EQ(music3::round_bf16(1.01171875f), 1.015625f);
  EXPECT_EQ(music3::round_bf16(-3.0f), -3.0f);
  EXPECT_TRUE(std::isnan(music3::round_bf16(std::nanf(""))));
  EXPECT_EQ(music3::round_bf16(std::bit_cast<float>(0x7F7FFFFFu)), INFINITY);
}

}  // namespace
