// add_rms_norm gate: the fused op equals add then rms_norm on the same provider, bit for
// bit, in h_out and a_out: at the model shape, an odd width, either operand a broadcast
// row, and h_out the very view of x or of r (in place); plus its argument refusals.
#include <gtest/gtest.h>

#include <functional>
#include <string>

#include "engine/ops/ops.h"
#include "gates/lib/ulp_stats.h"
#include "gates/ops/support/numerics.h"
#include "gates/ops/support/provider_under_test.h"
#include "engine/core/device_array.h"

namespace music3::optest {
namespace {

struct Outputs {
  std::vector<bf16> h, a;
};

std::vector<bf16> norm_weights(int64_t n, uint64_t seed) {
  std::vector<bf16> w = normal_bf16(static_cast<size_t>(n), seed, 0.3);
  for (auto& v : w) v = to_bf16(to_f32(v) + 1.0f);
  return w;
}

// In-place mode: 0 = h_out separate, 1 = h_out is x, 2 = h_out is r.
Outputs run(const Queue& q, bool fused, const std::vector<bf16>& x, int64_t x_rows, const std::vector<bf16>& r,
            int64_t r_rows, const std::vector<bf16>& w, int64_t rows, int64_t cols, int in_place) {
  DeviceArray xb(q, DType::BF16, {x_rows, cols}), rb(q, DType::BF16, {r_rows, cols}), wb(q, DType::BF16, {cols});
  DeviceArray hb(q, DType::BF16, {rows, cols}), ab(q, DType::BF16, {rows, cols});
  xb.upload(x);
  rb.upload(r);
  wb.upload(w);
  hb.poison();
  ab.poison();
  const Tensor& h = in_place == 1 ? xb.tensor() : in_place == 2 ? rb.tensor() : hb.tensor();
  if (fused) {
    ops::add_rms_norm(q, xb, rb, wb, 1e-6f, h, ab);
  } else {
    ops::add(q, xb, rb, h);
    ops::rms_norm(q, h, wb, 1e-6f, ab);
  }
  const DeviceArray& hs = in_place == 1 ? xb : in_place == 2 ? rb : hb;
  return {hs.download<bf16>(), ab.download<bf16>()};
}

void expect_fused_equals_unfused(int64_t x_rows, int64_t r_rows, int64_t rows, int64_t cols, int in_place,
                                 uint64_t seed) {
  const auto x = normal_bf16(static_cast<size_t>(x_rows * cols), seed, 2.0);
  const auto r = normal_bf16(static_cast<size_t>(r_rows * cols), seed + 1, 1.0);
  const auto w = norm_weights(cols, seed + 2);
  const Queue q = provider_queue(0);
  const Outputs fused = run(q, true, x, x_rows, r, r_rows, w, rows, cols, in_place);
  const Outputs unfused = run(q, false, x, x_rows, r, r_rows, w, rows, cols, in_place);
  const std::string what = provider_name() + " x rows " + std::to_string(x_rows) + ", r rows " +
                           std::to_string(r_rows) + ", " + std::to_string(rows) + " x " + std::to_string(cols) +
                           ", in place " + std::to_string(in_place);
  EXPECT_EQ(bits(fused.h), bits(unfused.h)) << what;
  EXPECT_EQ(bits(fused.a), bits(unfused.a)) << what;
  const gates::UlpStats s = gates::ulp_stats(fused.a, unfused.a);
  EXPECT_EQ(s.nonzero_refs + s.zero_refs, s.compared) << what << ": " << s.summary();  // all finite, both sides
}

TEST(AddRmsNorm, EqualsAddThenRmsNormAtTheModelShape) {
  expect_fused_equals_unfused(2, 2, 2, 4096, 0, 1);
  expect_fused_equals_unfused(4, 4, 4, 4096, 1, 4);  // h += r, the residual update
}

TEST(AddRmsNorm, EqualsAddThenRmsNormOnBroadcastRowsAndOddWidths) {
  expect_fused_equals_unfused(1, 3, 3, 4099, 0, 7);   // x a broadcast row
  expect_fused_equals_unfused(5, 1, 5, 1000, 0, 10);  // r a broadcast row (the position embedding)
  expect_fused_equals_unfused(1, 1, 2, 300, 0, 13);   // both broadcast
  expect_fused_equals_unfused(3, 3, 3, 777, 2, 16);   // h is r
}

TEST(AddRmsNorm, RefusesBadArguments) {
  if (provider_is_cuda()) GTEST_SKIP() << "entry checks run before any provider (CPU test)";
  const Queue q = cpu_queue(1);
  DeviceArray x(q, DType::BF16, {2, 64}), r(q, DType::BF16, {2, 64}), w(q, DType::BF16, {64});
  DeviceArray h(q, DType::BF16, {2, 64}), a(q, DType::BF16, {2, 64});
  DeviceArray three(q, DType::BF16, {3, 64}), short_w(q, DType::BF16, {63});
  const auto refused = [](const std::function<void()>& call, const std::string& arg) {
    try {
      call();
      ADD_FAILURE() << "no refusal for argument '" << arg << "'";
    } catch (const std::invalid_argument& e) {
      const std::string want = "add_rms_norm: argument '" + arg + "'";
      EXPECT_EQ(std::string(e.what()).rfind(want, 0), 0u) << e.what();
    }
  };
  EXPECT_NO_THROW(ops::add_rms_norm(q, x, r, w, 1e-6f, h, a));
  refused([&] { ops::add_rms_norm(q, three, r, w, 1e-6f, h, a); }, "x");
  refused([&] { ops::add_rms_norm(q, x, r, short_w, 1e-6f, h, a); }, "w");
  refused([&] { ops::add_rms_norm(q, x, r, w, 1e-6f, h, three); }, "a_out");
  refused([&] { ops::add_rms_norm(q, x, r, w, 1e-6f, h, h); }, "a_out");  // a_out must not overwrite h_out
  refused([&] { ops::add_rms_norm(q, x, r, w, -1.0f, h, a); }, "eps");
}

}  // namespace
}  // namespace music3::optest
