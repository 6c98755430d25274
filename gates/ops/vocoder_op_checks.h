// What the vocoder op gates (conv1d, conv_transpose1d, snake, tanh) share: the judgement of a provider's bf16
// output against an f64 reference with the op contract's rounding points. The providers accumulate in f32 (the
// CPU in a fixed order, cuBLAS in its own), so a sum whose f32 error crosses a bf16 rounding boundary lands one
// ULP off: the gate wants the median at 0, at least 98% of the elements bit-exact, none non-finite, and no
// element of magnitude >= 0.25 RMS more than 1 ULP off. swap_inner() turns [B, C, T] values into [B, T, C] ones
// (and back, with the extents swapped): the channels-last (ops::ActLayout::ChannelsLast) cases' inputs and outputs.
#pragma once
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/ops/vocoder_ops.h"
#include "gates/lib/ulp_stats.h"
#include "gates/ops/support/numerics.h"
#include "gates/ops/support/provider_under_test.h"

namespace music3::optest {

inline std::vector<bf16> swap_inner(const std::vector<bf16>& in, int64_t batch, int64_t rows, int64_t cols) {
  std::vector<bf16> out(in.size());
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c) out[size_t((b * cols + c) * rows + r)] = in[size_t((b * rows + r) * cols + c)];
  return out;
}

// `values` [B, C, T] as the activation layout `act` stores them, and back.
inline std::vector<bf16> to_act(const std::vector<bf16>& values, ops::ActLayout act, int64_t b, int64_t c, int64_t t) {
  return act == ops::ActLayout::ChannelsLast ? swap_inner(values, b, c, t) : values;
}
inline std::vector<bf16> from_act(const std::vector<bf16>& stored, ops::ActLayout act, int64_t b, int64_t c, int64_t t) {
  return act == ops::ActLayout::ChannelsLast ? swap_inner(stored, b, t, c) : stored;
}

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
