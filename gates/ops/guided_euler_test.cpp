// guided_euler gate: every provider updates x in place to the guided Euler step written out here from the rounding
// rules of flow_ops.h (each op in f32, then rounded to bf16, dt rounded to bf16 first), bit for bit, over the
// release's latent width (128) and odd widths, the 30-step schedule's dt values and guidance 1.7; pair is left as it
// was; mismatched shapes and an aliased x are refused by name.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "engine/core/device_array.h"
#include "engine/ops/flow_ops.h"
#include "gates/ops/support/numerics.h"
#include "gates/ops/support/provider_under_test.h"

namespace music3::optest {
namespace {

// The step as upstream computes it on bf16 tensors: CFG (shift, scaled shift, sum), then dt * v and x + that.
std::vector<bf16> reference(const std::vector<bf16>& pair, std::vector<bf16> x, int64_t rows, int64_t width,
                            float scale, float dt) {
  const float dt_bf16 = to_f32(to_bf16(dt));
  for (int64_t r = 0; r < rows; ++r)
    for (int64_t c = 0; c < width; ++c) {
      const float vc = to_f32(pair[size_t(2 * r * width + c)]), vu = to_f32(pair[size_t((2 * r + 1) * width + c)]);
      const float shift = to_f32(to_bf16(vc - vu));
      const float guided = to_f32(to_bf16(vu + to_f32(to_bf16(scale * shift))));
      const float update = to_f32(to_bf16(dt_bf16 * guided));
      bf16& xi = x[size_t(r * width + c)];
      xi = to_bf16(to_f32(xi) + update);
    }
  return x;
}

TEST(GuidedEuler, MatchesTheRoundingRulesBitForBit) {
  struct Case {
    int64_t rows, width;
  };
  // dt near the 30-step schedule's (every step's is ~1/30 in f32, each a little different) and one far from it.
  const float dts[] = {0.0333333f, 0.0333333f * 1.0001f, 0.0333334f, 0.9666667f - 0.9333333f, 0.0217f};
  for (const Case c : {Case{689, 128}, Case{1, 7}, Case{17, 130}, Case{172, 128}}) {
    for (float dt : dts) {
      const Queue q = provider_queue(0);
      const auto pair = normal_bf16(size_t(2 * c.rows * c.width), uint64_t(c.rows * 31 + c.width), 1.0);
      const auto x0 = normal_bf16(size_t(c.rows * c.width), uint64_t(c.rows * 37 + c.width), 1.0);
      DeviceArray pb(q, DType::BF16, {2 * c.rows, c.width}), xb(q, DType::BF16, {c.rows, c.width});
      pb.upload(pair);
      xb.upload(x0);
      ops::guided_euler(q, pb, xb, 1.7f, dt);
      const auto want = reference(pair, x0, c.rows, c.width, 1.7f, dt);
      EXPECT_EQ(bits(xb.download<bf16>()), bits(want)) << provider_name() << " rows " << c.rows << " width "
                                                        << c.width << " dt " << dt;
      EXPECT_EQ(bits(pb.download<bf16>()), bits(pair)) << "pair must be left as it was";
    }
  }
}

TEST(GuidedEuler, GuidanceScaleAndNegativeDtFollowTheSameRules) {
  const Queue q = provider_queue(0);
  const int64_t rows = 64, width = 128;
  const auto pair = normal_bf16(size_t(2 * rows * width), 5, 3.0);
  const auto x0 = normal_bf16(size_t(rows * width), 6, 3.0);
  for (float scale : {1.0f, 1.5f, 7.0f}) {
    DeviceArray pb(q, DType::BF16, {2 * rows, width}), xb(q, DType::BF16, {rows, width});
    pb.upload(pair);
    xb.upload(x0);
    ops::guided_euler(q, pb, xb, scale, -0.25f);
    EXPECT_EQ(bits(xb.download<bf16>()), bits(reference(pair, x0, rows, width, scale, -0.25f)))
        << provider_name() << " scale " << scale;
  }
}

TEST(GuidedEuler, RefusesMismatchedShapesAndAliasing) {
  const Queue q = provider_queue(0);
  DeviceArray pair(q, DType::BF16, {8, 16}), x(q, DType::BF16, {4, 16}), narrow(q, DType::BF16, {4, 8});
  DeviceArray short_pair(q, DType::BF16, {6, 16});
  EXPECT_THROW(ops::guided_euler(q, short_pair, x, 1.7f, 0.1f), std::invalid_argument);  // 6 rows, not 2 x 4
  EXPECT_THROW(ops::guided_euler(q, pair, narrow, 1.7f, 0.1f), std::invalid_argument);   // width 8, not 16
  EXPECT_THROW(ops::guided_euler(q, pair, x, 1.7f, std::nanf("")), std::invalid_argument);
  const Tensor half = pair.view(DType::BF16, {4, 16});
  EXPECT_THROW(ops::guided_euler(q, pair, half, 1.7f, 0.1f), std::invalid_argument);  // x inside pair
}

}  // namespace
}  // namespace music3::optest
