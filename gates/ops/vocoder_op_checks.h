// What the vocoder op gates (conv1d, conv_transpose1d, snake, tanh) share: the judgement of a provider's bf16
// output against an f64 reference with the op contract's rounding points. The providers accumulate in f32 (the
// CPU in a fixed order, cuBLAS in its own), so a sum whose f32 error crosses a bf16 rounding boundary lands one
// ULP off: the gate wants the median at 0, at least 98% of the elements bit-exact, none non-finite, and no
// element of magnitude >= 0.25 RMS more than 1 ULP off.
#pragma once
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "gates/lib/ulp_stats.h"
#include "gates/ops/support/numerics.h"
#include "gates/ops/support/provider_under_test.h"

namespace music3::optest {

inline void expect_contract(const std::vector<bf16>& got, const std::vector<bf16>& ref, const std::string& what) {
  const gates::UlpStats s = gates::ulp_stats(got, ref);
  report(provider_name() + " " + what, s);
  SCOPED_TRACE(provider_name() + " " + what + ": " + s.summary());
  EXPECT_EQ(s.nonfinite, 0u);
  EXPECT_EQ(s.median, 0.0);
  EXPECT_LE(s.max_conditioned, 1.0);
  EXPECT_GE(static_cast<double>(s.exact), 0.98 * static_cast<double>(s.nonzero_refs));
}

}  // namespace music3::optest
