// feedback_embedding gate: the AR loop's feedback embedding op (lm_ops.h) against the rule written out here (the
// seven audio rows summed in f32 in increasing k, one rounding; the semantic row added, one rounding; the scale,
// one rounding), bit for bit in both rows, at the LM's width (4,096) and at 1,000 and 64, with 7 codebook steps of
// 256 and of 16 codes and with 3 steps, on rows whose magnitudes span 2^-12 .. 2^4 (so the sums round); the column
// selecting the semantic row; the CPU provider refusing a column or code out of range (the CUDA provider clamps such
// a frame's rows, which the AR loop discards); the provider under test took the calls; the entry's refusals by name.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/core/bf16.h"
#include "engine/core/device_array.h"
#include "engine/ops/lm_ops.h"
#include "gates/ops/support/provider_under_test.h"
#include "gates/ops/support/provider_use.h"

namespace music3::optest {
namespace {

struct Case {
  int64_t rows, hidden, audio_vocab;
  int steps;
};

struct Inputs {
  std::vector<bf16> semantic, audio;
  std::vector<int32_t> codes;
  int32_t column = 0;
  float scale = 0;
};

Inputs make_inputs(const Case& c, std::mt19937_64& rng) {
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_real_distribution<float> exponent(-12.0f, 4.0f);
  Inputs in;
  in.semantic.resize(size_t(c.rows * c.hidden));
  in.audio.resize(size_t(c.steps * c.audio_vocab * c.hidden));
  for (auto& v : in.semantic) v = to_bf16(normal(rng));
  for (auto& v : in.audio) v = to_bf16(normal(rng) * std::exp2(exponent(rng)));  // sums that round
  for (int k = 0; k < c.steps; ++k) in.codes.push_back(int32_t(rng() % uint64_t(c.audio_vocab)));
  in.column = int32_t(rng() % uint64_t(c.rows));
  in.scale = static_cast<float>(std::pow(double(c.steps + 1), -0.5));
  return in;
}

// The rule, written out.
std::vector<bf16> reference(const Case& c, const Inputs& in) {
  std::vector<bf16> out(size_t(2 * c.hidden));
  for (int64_t i = 0; i < c.hidden; ++i) {
    float sum = 0.0f;
    for (int k = 0; k < c.steps; ++k)
      sum = sum + to_f32(in.audio[size_t((in.codes[size_t(k)] + k * c.audio_vocab) * c.hidden + i)]);
    const float added = to_f32(to_bf16(to_f32(in.semantic[size_t(in.column * c.hidden + i)]) + to_f32(to_bf16(sum))));
    out[size_t(i)] = out[size_t(c.hidden + i)] = to_bf16(added * in.scale);
  }
  return out;
}

std::vector<bf16> run_op(const Queue& q, const Case& c, const Inputs& in) {
  DeviceArray semantic(q, DType::BF16, {c.rows, c.hidden}), audio(q, DType::BF16, {c.steps * c.audio_vocab, c.hidden}),
      column(q, DType::I32, {1}), codes(q, DType::I32, {c.steps}), out(q, DType::BF16, {2, c.hidden});
  semantic.upload(in.semantic);
  audio.upload(in.audio);
  column.upload(std::vector<int32_t>{in.column});
  codes.upload(in.codes);
  out.poison();
  ops::feedback_embedding(q, {semantic, column, audio, codes, out, c.audio_vocab, in.scale});
  return out.download<bf16>();
}

TEST(FeedbackEmbedding, TheRulesBitsInBothRows) {
  std::mt19937_64 rng(20261204);
  const Case cases[] = {{300, 4096, 256, 7}, {40, 1000, 16, 7}, {5, 64, 16, 3}};
  for (const Case& c : cases)
    for (int rep = 0; rep < 3; ++rep) {
      const Inputs in = make_inputs(c, rng);
      const std::vector<bf16> got = run_op(provider_queue(0), c, in), want = reference(c, in);
      int differing = 0;
      for (size_t i = 0; i < got.size(); ++i) differing += got[i].bits != want[i].bits;
      EXPECT_EQ(differing, 0) << "H " << c.hidden << " S " << c.steps << " rep " << rep;
    }
}

TEST(FeedbackEmbedding, TheColumnSelectsTheSemanticRow) {
  std::mt19937_64 rng(3);
  const Case c{8, 64, 16, 7};
  Inputs in = make_inputs(c, rng);
  in.column = 2;
  const std::vector<bf16> two = run_op(provider_queue(0), c, in);
  in.column = 5;
  const std::vector<bf16> five = run_op(provider_queue(0), c, in);
  EXPECT_EQ(five[0].bits, reference(c, in)[0].bits);
  EXPECT_NE(std::memcmp(two.data(), five.data(), two.size() * sizeof(bf16)), 0);
}

TEST(FeedbackEmbedding, RowsOutOfRange) {
  std::mt19937_64 rng(5);
  const Case c{8, 64, 16, 7};
  Inputs in = make_inputs(c, rng);
  in.column = 8;
  if (provider_is_cuda()) {  // clamped into the table: the last row
    const std::vector<bf16> got = run_op(provider_queue(0), c, in);
    in.column = 7;
    EXPECT_EQ(std::memcmp(got.data(), reference(c, in).data(), got.size() * sizeof(bf16)), 0);
    return;
  }
  EXPECT_THROW(run_op(provider_queue(0), c, in), std::out_of_range);
  in.column = 0;
  in.codes[3] = 16;
  EXPECT_THROW(run_op(provider_queue(0), c, in), std::out_of_range);
}

TEST(FeedbackEmbedding, TheProviderUnderTestTookTheCalls) {
  const std::string name = provider_name() + ".feedback_embedding";
  bool enabled = false;
  const uint64_t before = provider_calls(name, enabled);
  ASSERT_TRUE(enabled) << name << " is not enabled (its ctest enables the opt-in CUDA provider)";
  std::mt19937_64 rng(7);
  const Case c{8, 64, 16, 7};
  run_op(provider_queue(0), c, make_inputs(c, rng));
  EXPECT_EQ(provider_calls(name, enabled), before + 1) << name;
}

TEST(FeedbackEmbedding, TheEntryRefusesByName) {
  const Queue q = provider_queue(0);
  DeviceArray semantic(q, DType::BF16, {8, 64}), audio(q, DType::BF16, {112, 64}), column(q, DType::I32, {1}),
      codes(q, DType::I32, {7}), out(q, DType::BF16, {2, 64}), narrow(q, DType::BF16, {2, 32});
  const auto refusal = [&](const ops::FeedbackEmbeddingArgs& a) {
    try {
      ops::feedback_embedding(q, a);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  EXPECT_NE(refusal({semantic, column, audio, codes, narrow, 16, 0.35f}).find("'out'"), std::string::npos);
  EXPECT_NE(refusal({semantic, column, audio, codes, out, 15, 0.35f}).find("audio_vocab"), std::string::npos);
  EXPECT_NE(refusal({semantic, column, audio, codes, out, 16, NAN}).find("scale"), std::string::npos);
  EXPECT_NE(refusal({semantic, column, audio, codes, semantic, 16, 0.35f}).find("'out'"), std::string::npos);
}

}  // namespace
}  // namespace music3::optest
