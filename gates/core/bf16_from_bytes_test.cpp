// core_bf16_from_bytes_test: the loaders' per-element work (engine/core/bf16_from_bytes.h). The F32 rounding equals
// to_bf16 element by element from unaligned bytes, above and below the size where the work is split over threads;
// first_nonfinite returns the lowest index of an inf or NaN (-1 when there is none), whichever chunk holds it, and
// the same index on every run.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <limits>
#include <vector>

#include "engine/core/bf16_from_bytes.h"

namespace {
using music3::bf16;

// Above the split size (2^20): several chunks on any machine with more than one thread.
constexpr int64_t kLarge = (int64_t{1} << 21) + 77;

std::vector<float> floats(int64_t n) {
  std::vector<float> f(static_cast<size_t>(n));
  uint32_t s = 12345;
  for (auto& v : f) {
    s = s * 1664525u + 1013904223u;
    uint32_t bits = (s & 0x3FFFFFFFu) | 0x3E000000u;  // finite, some with bf16 ties in their low half
    if (s & 1u) bits = (bits & 0xFFFF0000u) | 0x8000u;  // an exact tie: ties to even decides
    std::memcpy(&v, &bits, 4);
  }
  return f;
}

TEST(Bf16FromBytes, F32RoundingEqualsToBf16FromUnalignedBytes) {
  for (int64_t n : {int64_t{0}, int64_t{1}, int64_t{1000}, kLarge}) {
    const std::vector<float> f = floats(n);
    std::vector<unsigned char> bytes(static_cast<size_t>(n) * 4 + 1);
    if (n > 0) std::memcpy(bytes.data() + 1, f.data(), static_cast<size_t>(n) * 4);  // misaligned by one byte
    std::vector<bf16> out(static_cast<size_t>(n));
    music3::bf16_from_f32_bytes(bytes.data() + 1, n, out.data());
    int64_t differ = 0;
    for (int64_t i = 0; i < n; ++i) differ += out[size_t(i)].bits != music3::to_bf16(f[size_t(i)]).bits;
    EXPECT_EQ(differ, 0) << "n = " << n;
  }
}

std::vector<bf16> finite_values(int64_t n) {
  std::vector<bf16> v(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) v[size_t(i)] = music3::to_bf16(static_cast<float>(i % 1000) - 500.0f);
  return v;
}

TEST(Bf16FromBytes, FirstNonfiniteIsMinusOneWhenEveryValueIsFinite) {
  EXPECT_EQ(music3::first_nonfinite(nullptr, 0), -1);
  for (int64_t n : {int64_t{1}, int64_t{5000}, kLarge}) {
    const std::vector<bf16> v = finite_values(n);
    EXPECT_EQ(music3::first_nonfinite(v.data(), n), -1) << "n = " << n;
  }
}

TEST(Bf16FromBytes, FirstNonfiniteIsTheLowestIndexWhicheverChunkHoldsIt) {
  const bf16 inf = music3::to_bf16(std::numeric_limits<float>::infinity());
  const bf16 nan = music3::to_bf16(std::numeric_limits<float>::quiet_NaN());
  const bf16 ninf = music3::to_bf16(-std::numeric_limits<float>::infinity());
  struct Case {
    int64_t n;
    std::vector<std::pair<int64_t, bf16>> bad;
    int64_t want;
  };
  const std::vector<Case> cases = {
      {5000, {{4999, inf}}, 4999},
      {5000, {{0, nan}}, 0},
      {kLarge, {{kLarge - 1, ninf}}, kLarge - 1},
      {kLarge, {{kLarge - 3, inf}, {100, nan}}, 100},                   // the lower one in the first chunk
      {kLarge, {{kLarge / 2 + 9, nan}, {kLarge - 5, inf}}, kLarge / 2 + 9},  // both past the first chunk
      {kLarge, {{3, ninf}, {4, inf}, {kLarge / 3, nan}}, 3},
  };
  for (const Case& c : cases) {
    std::vector<bf16> v = finite_values(c.n);
    for (const auto& [at, value] : c.bad) v[size_t(at)] = value;
    for (int run = 0; run < 3; ++run) EXPECT_EQ(music3::first_nonfinite(v.data(), c.n), c.want) << "n = " << c.n;
  }
}

}  // namespace
