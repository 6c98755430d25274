// snake and tanh gates: the provider under test against f64 references with the contract's six (one) bf16
// rounding points, in place and out of place, with wide inputs and per-channel alphas from 0.05 to 20; snake with
// channels-first and channels-last activations, 7 channels (T 1000: CUDA's 16-byte form channels-first, its
// element form channels-last) and 24 (its 16-byte form both ways); and the same bits from a 16-byte aligned
// tensor and from one a single element off (CUDA's two forms); where cuda.snake.table is enabled, the CPU provider's
// bits exactly, on these inputs and on every bf16 pattern.
#include <gtest/gtest.h>

#include <cmath>
#include <string>

#include "engine/core/device_array.h"
#include "engine/ops/registry.h"
#include "engine/ops/vocoder_ops.h"
#include "gates/ops/vocoder_op_checks.h"

namespace music3::optest {
namespace {

constexpr int64_t kBatch = 2, kChannels = 7, kTime = 1000;

std::vector<bf16> snake_reference(const std::vector<bf16>& x, const std::vector<bf16>& alpha) {
  const size_t channels = alpha.size();
  std::vector<bf16> out(x.size());
  for (size_t i = 0; i < x.size(); ++i) {
    const double a = to_f32(alpha[(i / kTime) % channels]), v = to_f32(x[i]);
    const double inv = to_f32(bf16_from_f64(1.0 / to_f32(bf16_from_f64(a + double(1e-9f)))));
    const double s = to_f32(bf16_from_f64(std::sin(to_f32(bf16_from_f64(a * v)))));
    out[i] = bf16_from_f64(v + to_f32(bf16_from_f64(inv * to_f32(bf16_from_f64(s * s)))));
  }
  return out;
}

// `channels` alphas cycling through 0.05 .. 20.
std::vector<bf16> alphas(int64_t channels) {
  const double values[] = {0.05, 0.3, 1.0, 1.7, 3.0, 9.0, 20.0};
  std::vector<bf16> a;
  for (int64_t c = 0; c < channels; ++c) a.push_back(bf16_from_f64(values[c % 7] * (1.0 + 0.01 * double(c / 7))));
  return a;
}

TEST(Snake, MatchesF64ReferenceInAndOutOfPlace) {
  const Queue q = provider_queue(0);
  for (const int64_t channels : {kChannels, int64_t{24}}) {
    const auto x = normal_bf16(size_t(kBatch * channels * kTime), 31 + uint64_t(channels), 4.0);
    const auto alpha = alphas(channels);
    for (const auto act : ops::kActLayouts) {
      const std::string tag =
          std::string("snake ") + ops::act_layout_name(act) + " C=" + std::to_string(channels);
      const Shape shape = ops::act_shape(act, kBatch, channels, kTime);
      DeviceArray xb(q, DType::BF16, shape), ab(q, DType::BF16, {channels}), ob(q, DType::BF16, shape);
      xb.upload(to_act(x, act, kBatch, channels, kTime)), ab.upload(alpha), ob.poison();
      ops::snake(q, xb, ab, ob, act);
      expect_contract(from_act(ob.download<bf16>(), act, kBatch, channels, kTime), snake_reference(x, alpha),
                      tag + " out of place");
      ops::snake(q, xb, ab, xb, act);
      expect_contract(from_act(xb.download<bf16>(), act, kBatch, channels, kTime), snake_reference(x, alpha),
                      tag + " in place");
      DeviceArray wrong(q, DType::BF16, {channels + 1});
      EXPECT_THROW(ops::snake(q, xb, wrong, ob, act), std::invalid_argument);
    }
  }
}

TEST(Snake, AlignedAndMisalignedTensorsGiveTheSameBits) {
  const Queue q = provider_queue(0);
  constexpr int64_t C = 24;
  const auto alpha = alphas(C);
  for (const auto act : ops::kActLayouts) {
    const Shape shape = ops::act_shape(act, kBatch, C, kTime);
    const int64_t n = kBatch * C * kTime;
    const auto x = normal_bf16(size_t(n), 77, 4.0);
    DeviceArray ab(q, DType::BF16, {C}), aligned_in(q, DType::BF16, shape), aligned_out(q, DType::BF16, shape);
    DeviceArray shifted_in(q, DType::BF16, {n + 1}), shifted_out(q, DType::BF16, {n + 1});
    ab.upload(alpha);
    aligned_in.upload(x);
    std::vector<bf16> padded(size_t(n + 1));
    std::copy(x.begin(), x.end(), padded.begin() + 1);
    shifted_in.upload(padded);
    aligned_out.poison();
    shifted_out.poison();
    auto one_off = [&](DeviceArray& a) {  // the tensor one element into `a`: 2-byte, not 16-byte, aligned
      return Tensor{static_cast<bf16*>(a.data()) + 1, DType::BF16, shape, q.device};
    };
    ops::snake(q, aligned_in, ab, aligned_out, act);
    ops::snake(q, one_off(shifted_in), ab, one_off(shifted_out), act);
    const auto got = shifted_out.download<bf16>();
    EXPECT_EQ(bits(std::vector<bf16>(got.begin() + 1, got.end())), bits(aligned_out.download<bf16>()))
        << provider_name() << " " << ops::act_layout_name(act);
  }
}

// The table provider, enabled in every run but op_snake_cuda_sinf.
constexpr const char* kTableProvider = "cuda.snake.table";

// The snake of `x` ([kBatch, C, T] values in `act`'s order) on q, by the table provider (checked), against the CPU
// provider's bits; `offset` elements off a 16-byte boundary.
void expect_cpu_provider_bits(const Queue& q, const std::vector<bf16>& x, const std::vector<bf16>& alpha, int64_t time,
                              ops::ActLayout act, int64_t offset, const std::string& what) {
  const auto channels = static_cast<int64_t>(alpha.size());
  const Shape shape = ops::act_shape(act, kBatch, channels, time);
  const auto n = static_cast<int64_t>(x.size());
  DeviceArray xb(q, DType::BF16, {n + 1}), ab(q, DType::BF16, {channels}), ob(q, DType::BF16, {n + 1});
  std::vector<bf16> padded(size_t(n + 1));
  std::copy(x.begin(), x.end(), padded.begin() + offset);
  xb.upload(padded), ab.upload(alpha), ob.poison();
  const Tensor xt{static_cast<bf16*>(xb.data()) + offset, DType::BF16, shape, q.device};
  const Tensor ot{static_cast<bf16*>(ob.data()) + offset, DType::BF16, shape, q.device};
  const ops::SnakeArgs args{xt, ab, ot, act};
  const ops::Provider* runs = ops::registry().find(ops::OpId::Snake, q.device, &args);
  ASSERT_NE(runs, nullptr) << what;
  EXPECT_EQ(runs->name, kTableProvider) << what;
  ops::snake(q, xt, ab, ot, act);
  const Queue host = cpu_queue();
  DeviceArray hx(host, DType::BF16, shape), ha(host, DType::BF16, {channels}), ho(host, DType::BF16, shape);
  hx.upload(x), ha.upload(alpha), ho.poison();
  ops::snake(host, hx, ha, ho, act);
  const auto got = ob.download<bf16>();
  EXPECT_EQ(bits(std::vector<bf16>(got.begin() + offset, got.begin() + offset + n)), bits(ho.download<bf16>())) << what;
}

// Where cuda.snake.table is enabled, it takes every snake of this gate, both forms (7 and 24 channels, either layout,
// aligned and one element off), and gives the CPU provider's bits: its table is the CPU provider's sine (cuda.snake's
// own sinf may differ from it in rare bf16 ties, which expect_contract allows).
TEST(Snake, TableProviderGivesTheCpuProviderBits) {
  const Queue q = provider_queue(0);
  if (q.is_cpu()) GTEST_SKIP() << "cuda.snake.table is a CUDA provider; this run's queue is the CPU";
  if (!ops::registry().enabled(kTableProvider)) GTEST_SKIP() << "cuda.snake.table is not enabled in this run";
  for (const int64_t channels : {kChannels, int64_t{24}})
    for (const auto act : ops::kActLayouts)
      for (const int64_t offset : {0, 1})  // 16-byte aligned, then one element off
        expect_cpu_provider_bits(q, normal_bf16(size_t(kBatch * channels * kTime), 91 + uint64_t(channels), 4.0),
                                 alphas(channels), kTime, act, offset,
                                 std::string(ops::act_layout_name(act)) + " C=" + std::to_string(channels) +
                                     (offset ? " one element off" : " aligned"));
}

// Every bf16 pattern (NaN, infinities, subnormals and both zeros included) as input under each of 8 alphas (a negative
// one, a zero one, 1e-9's neighbourhood, large ones), either layout, both forms: the table provider gives the CPU
// provider's bits, its three roundings and the table's NaN entries included.
TEST(Snake, TableProviderGivesTheCpuProviderBitsOnEveryPattern) {
  const Queue q = provider_queue(0);
  if (q.is_cpu()) GTEST_SKIP() << "cuda.snake.table is a CUDA provider; this run's queue is the CPU";
  if (!ops::registry().enabled(kTableProvider)) GTEST_SKIP() << "cuda.snake.table is not enabled in this run";
  std::vector<bf16> alpha;
  for (const double a : {-1.5, 0.0, 1e-9, 0.05, 1.0, 3.0, 250.0, 3.0e38}) alpha.push_back(bf16_from_f64(a));
  const auto channels = static_cast<int64_t>(alpha.size());
  const int64_t time = 65536 / kBatch;  // each channel's kBatch x 32,768 positions hold every pattern once
  for (const auto act : ops::kActLayouts) {
    std::vector<bf16> x(size_t(kBatch * channels * time));
    for (int64_t b = 0; b < kBatch; ++b)
      for (int64_t c = 0; c < channels; ++c)
        for (int64_t t = 0; t < time; ++t) {
          // position (b, t) of channel c: pattern (b T + t) 40503 + c 4099 mod 2^16, a permutation of the 65,536 per
          // channel (40503 is odd), shifted per channel so neighbouring channels see different patterns
          const auto pattern = static_cast<uint16_t>(uint32_t(b * time + t) * 40503u + uint32_t(c) * 4099u);
          const int64_t at = act == ops::ActLayout::ChannelsLast ? (b * time + t) * channels + c
                                                                  : (b * channels + c) * time + t;
          x[size_t(at)] = bf16{pattern};
        }
    for (const int64_t offset : {0, 1})
      expect_cpu_provider_bits(q, x, alpha, time, act, offset,
                               std::string(ops::act_layout_name(act)) + " every pattern" +
                                   (offset ? ", one element off" : ", aligned"));
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
