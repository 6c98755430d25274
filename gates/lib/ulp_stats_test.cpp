// Gate of the ULP metric itself (gates/lib/ulp_stats.h): each output format is
// scored in its own ULPs, exact-zero references land in the bounded zero
// bucket, and rows are scored apart with their elements' own indices.
#include "gates/lib/ulp_stats.h"

#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>
#include <vector>

namespace music3::gates {
namespace {

TEST(UlpScale, SpacingOfEachFormat) {
  EXPECT_EQ(bf16_ulp(1.0f), std::ldexp(1.0, -7));
  EXPECT_EQ(f32_ulp(1.0f), std::ldexp(1.0, -23));
  EXPECT_EQ(bf16_ulp(0.75f), std::ldexp(1.0, -8));
  EXPECT_EQ(f32_ulp(-0.75f), std::ldexp(1.0, -24));
  EXPECT_EQ(bf16_ulp(1e-40f), std::ldexp(1.0, -133));  // denormal range: the smallest normal's spacing
  EXPECT_EQ(f32_ulp(1e-40f), std::ldexp(1.0, -149));
}

TEST(UlpScale, F32OutputsAreScoredInF32Ulps) {
  const float ref[] = {1.0f, 2.0f};
  const float got[] = {std::nextafter(1.0f, 2.0f), 2.0f};
  const UlpStats f32 = ulp_stats(got, ref, 2, UlpScale::F32);
  EXPECT_EQ(f32.worst, 1.0);
  EXPECT_EQ(f32.worst_index, 0u);
  EXPECT_EQ(f32.exact, 1u);
  const UlpStats coarse = ulp_stats(got, ref, 2, UlpScale::Bf16);
  EXPECT_EQ(coarse.worst, std::ldexp(1.0, -16));  // the bf16 scale would hide a one-f32-ULP change
}

TEST(ZeroBucket, ZeroReferencesAreScoredAgainstTheTensorScale) {
  // RMS of the reference = sqrt(3)/2 ~ 0.87, so one zero-bucket unit is
  // bf16_ulp(0.87) = 2^-8.
  const std::vector<bf16> ref{to_bf16(1.0f), to_bf16(-1.0f), to_bf16(0.0f), to_bf16(1.0f)};
  std::vector<bf16> got = ref;
  UlpStats s = ulp_stats(got, ref);
  EXPECT_EQ(s.zero_refs, 1u);
  EXPECT_EQ(s.nonzero_refs, 3u);
  EXPECT_EQ(s.zero_max, 0.0);
  got[2] = to_bf16(std::ldexp(1.0f, -5));
  s = ulp_stats(got, ref);
  EXPECT_EQ(s.zero_max, 8.0);
  EXPECT_EQ(s.zero_bucket_max_abs, std::ldexp(1.0, -5));
  EXPECT_EQ(s.median,
            0.0);  // the ULP bucket is untouched: only the zero bucket sees the defect
}

TEST(Rows, EachRowIsScoredOnItsOwn) {
  // [blocks=3, rows=2, width=4]; a defect confined to row 1 of block 2,
  // element 3.
  const size_t rows = 2, width = 4, n = 3 * rows * width;
  std::vector<bf16> ref(n), got(n);
  for (size_t i = 0; i < n; ++i) ref[i] = got[i] = to_bf16(1.0f + float(i) / 64.0f);
  const size_t hit = (2 * rows + 1) * width + 3;
  got[hit] = to_bf16(to_f32(ref[hit]) * 1.5f);
  const auto by_row = ulp_stats_rows(got.data(), ref.data(), n, rows, width);
  ASSERT_EQ(by_row.size(), rows);
  EXPECT_EQ(by_row[0].compared, 12u);
  EXPECT_EQ(by_row[0].worst, 0.0);
  EXPECT_EQ(by_row[1].compared, 12u);
  EXPECT_GT(by_row[1].worst, 0.0);
  EXPECT_EQ(by_row[1].worst_index, hit);
  EXPECT_EQ(by_row[1].exact, 11u);
  const UlpStats pooled = ulp_stats(got, ref);
  EXPECT_EQ(pooled.worst, by_row[1].worst);
  EXPECT_LT(pooled.mean, by_row[1].mean);  // pooling dilutes a one-row defect
}

TEST(Rows, RowMeansDifferWhenOneRowIsShifted) {
  // Every element of row 0 one ULP off, row 1 exact: the row-0 median is 1, the
  // pooled median 0 or 1 by chance.
  const size_t rows = 2, width = 8, n = 4 * rows * width;
  std::vector<bf16> ref(n), got(n);
  for (size_t i = 0; i < n; ++i) {
    ref[i] = to_bf16(1.25f);
    got[i] = ref[i];
    if ((i / width) % rows == 0) got[i].bits = uint16_t(ref[i].bits + 1);
  }
  const auto by_row = ulp_stats_rows(got.data(), ref.data(), n, rows, width);
  EXPECT_EQ(by_row[0].median, 1.0);
  EXPECT_EQ(by_row[0].mean, 1.0);
  EXPECT_EQ(by_row[1].mean, 0.0);
}

TEST(Rows, RefusesASizeThatIsNotWholeRows) {
  std::vector<bf16> v(10);
  EXPECT_THROW(ulp_stats_rows(v.data(), v.data(), v.size(), 2, 4), std::invalid_argument);
  EXPECT_THROW(ulp_stats_rows(v.data(), v.data(), v.size(), 0, 4), std::invalid_argument);
}

// Bits, not values: +0 and -0 differ, one NaN's bits equal themselves, and a size mismatch counts every element.
TEST(DifferingBits, ComparesBitsAndCountsASizeMismatchWhole) {
  std::vector<bf16> zeros(4), signed_zero(4), nan(4);
  signed_zero[1].bits = 0x8000;  // -0 against +0
  nan[2].bits = 0x7FC0;
  EXPECT_EQ(differing_bits(signed_zero, zeros), 1);
  EXPECT_EQ(differing_bits(nan, nan), 0);
  EXPECT_EQ(differing_bits(nan, zeros), 1);
  EXPECT_EQ(differing_bits(zeros, std::vector<bf16>(6)), 6);
}

}  // namespace
}  // namespace music3::gates
