// snake and tanh gates: the provider under test against f64 references with the contract's six (one) bf16
// rounding points, in place and out of place, with wide inputs and per-channel alphas from 0.05 to 20; snake with
// channels-first and channels-last activations.
#include <gtest/gtest.h>

#include <cmath>

#include "engine/core/device_array.h"
#include "engine/ops/vocoder_ops.h"
#include "gates/ops/vocoder_op_checks.h"

namespace music3::optest {
namespace {

constexpr int64_t kBatch = 2, kChannels = 7, kTime = 1000;

std::vector<bf16> snake_reference(const std::vector<bf16>& x, const std::vector<bf16>& alpha) {
  std::vector<bf16> out(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const double a = to_f32(alpha[(i / kTime) % kChannels]), v = to_f32(x[i]);
    const double inv = to_f32(bf16_from_f64(1.0 / to_f32(bf16_from_f64(a + double(1e-9f)))));
    const double s = to_f32(bf16_from_f64(std::sin(to_f32(bf16_from_f64(a * v)))));
    out[i] = bf16_from_f64(v + to_f32(bf16_from_f64(inv * to_f32(bf16_from_f64(s * s)))));
  }
  return out;
}

std::vector<bf16> alphas() {
  std::vector<bf16> a;
  for (double v : {0.05, 0.3, 1.0, 1.7, 3.0, 9.0, 20.0}) a.push_back(bf16_from_f64(v));
  return a;
}

TEST(Snake, MatchesF64ReferenceInAndOutOfPlace) {
  const auto x = normal_bf16(size_t(kBatch * kChannels * kTime), 31, 4.0);
  const auto alpha = alphas();
  const Queue q = provider_queue(0);
  for (const auto act : ops::kActLayouts) {
    const std::string tag = std::string("snake ") + ops::act_layout_name(act);
    const Shape shape = ops::act_shape(act, kBatch, kChannels, kTime);
    DeviceArray xb(q, DType::BF16, shape), ab(q, DType::BF16, {kChannels}), ob(q, DType::BF16, shape);
    xb.upload(to_act(x, act, kBatch, kChannels, kTime)), ab.upload(alpha), ob.poison();
    ops::snake(q, xb, ab, ob, act);
    expect_contract(from_act(ob.download<bf16>(), act, kBatch, kChannels, kTime), snake_reference(x, alpha),
                    tag + " out of place");
    ops::snake(q, xb, ab, xb, act);
    expect_contract(from_act(xb.download<bf16>(), act, kBatch, kChannels, kTime), snake_reference(x, alpha),
                    tag + " in place");
    DeviceArray wrong(q, DType::BF16, {kChannels + 1});
    EXPECT_THROW(ops::snake(q, xb, wrong, ob, act), std::invalid_argument);
  }
}

TEST(Tanh, MatchesF64Reference) {
  auto x = normal_bf16(size_t(kBatch * kChannels * kTime), 41, 2.0);
  x[0] = bf16_from_f64(30.0), x[1] = bf16_from_f64(-30.0), x[2] = bf16_from_f64(0.0);
  std::vector<bf16> ref(x.size());
  for (size_t i = 0; i < x.size(); ++i) ref[i] = bf16_from_f64(std::tanh(double(to_f32(x[i]))));
  const Queue q = provider_queue(0);
  DeviceArray xb(q, DType::BF16, {kBatch, kChannels, kTime});
  xb.upload(x);
  ops::tanh(q, xb, xb);
  expect_contract(xb.download<bf16>(), ref, "tanh in place");
}

}  // namespace
}  // namespace music3::optest
