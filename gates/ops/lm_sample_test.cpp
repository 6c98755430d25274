// lm_sample gate: the language model's sampler op (lm_ops.h) against the dense rule written out here over every
// column (a full sort in torch.topk's order, NaN first, for both thresholds; sampler_algo.h's full tree; every
// column's score), bit for bit (any NaN equal to any NaN) in the column, the guided logits, the probabilities and
// the non-finite count, at
// K = 16,385 (the LM's), 16,896 (the CUDA kernel's most), 16,384 (its tree without the fold), 1,000, 7 and 1, on
// rows of ten kinds: random, many ties, all tied, zero and infinite draws, a few huge logits, NaN conditional
// logits below and at the pre-filter's rank (a NaN threshold drops nothing), infinities, signed zeros at the
// threshold; with recorded draws and with the generator keyed at each column's full-vocabulary id. Also: the
// optional outputs left out, the count added to the counter's value, the provider under test took the calls, the
// CUDA provider's limit, and the entry's refusals by name.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/core/device_array.h"
#include "engine/ops/lm_ops.h"
#include "engine/ops/registry.h"
#include "engine/ops/sampler_algo.h"
#include "engine/ops/sampler_math.h"
#include "gates/ops/support/provider_under_test.h"
#include "gates/ops/support/provider_use.h"

namespace music3::optest {
namespace {

constexpr float kCfg = 1.5f;
constexpr int kCfgTopK = 50, kTopK = 50;
constexpr uint32_t kStep = 0xFFFFu;
constexpr int32_t kFirstId = 151670, kNextId = 151675;

struct Row {
  int K = 0;
  std::vector<bf16> logits;  // [2, K]
  std::vector<float> draws;  // [K]: recorded, or the generator's values at the columns' ids
  bool recorded = true;
  uint64_t seed = 0, iteration = 0;
};

struct Outcome {
  int32_t column = -1;
  uint32_t nonfinite = 0;
  std::vector<float> guided, probs;
};

uint32_t id_of(int col) { return uint32_t(col == 0 ? kFirstId : kNextId + col - 1); }

// The rule over every column, each step as lm_ops.h states it.
Outcome dense_rule(const Row& r) {
  using namespace sampler;
  const int K = r.K;
  std::vector<float> c(static_cast<size_t>(K)), g(static_cast<size_t>(K));
  Outcome o;
  for (int i = 0; i < K; ++i) {
    c[size_t(i)] = to_f32(r.logits[size_t(i)]);
    const float u = to_f32(r.logits[size_t(K + i)]);
    o.nonfinite += !std::isfinite(c[size_t(i)]) + !std::isfinite(u);
    g[size_t(i)] = u + (c[size_t(i)] - u) * kCfg;
  }
  const auto kth = [](std::vector<float> v, int k) {  // torch.topk's order: NaN above every number
    std::sort(v.begin(), v.end(), [](float a, float b) { return a != a ? b == b : b != b ? false : a > b; });
    return v[size_t(std::min<int>(k, int(v.size())) - 1)];
  };
  const float ct = kth(c, kCfgTopK);
  o.guided.resize(size_t(K));
  for (int i = 0; i < K; ++i) {
    if (c[size_t(i)] < ct) g[size_t(i)] = -std::numeric_limits<float>::infinity();
    o.guided[size_t(i)] = g[size_t(i)];
    const float v = g[size_t(i)];
    g[size_t(i)] = v != v ? -1e9f : std::isinf(v) ? (v > 0 ? 1e9f : -1e9f) : v;
  }
  const float t = kth(g, kTopK), mx = *std::max_element(g.begin(), g.end());
  const uint32_t P = tree_size(uint32_t(K));
  std::vector<float> w(P, 0.0f), p(P, 0.0f), tree;
  for (int i = 0; i < K; ++i) w[size_t(i)] = kept_weight(g[size_t(i)], mx, !(g[size_t(i)] < t));
  tree = w;
  const float sum = tree_sum(tree.data(), P);
  for (uint32_t i = 0; i < P; ++i) p[i] = normalized(w[i], sum);
  tree = p;
  const float sum_p = tree_sum(tree.data(), P);
  o.probs.resize(size_t(K));
  float best_score = 0;
  for (int i = 0; i < K; ++i) {
    o.probs[size_t(i)] = renormalized(p[size_t(i)], sum_p);
    const float score = draw_score(o.probs[size_t(i)], r.draws[size_t(i)]);
    if (i == 0 || draw_beats(score, uint32_t(i), best_score, uint32_t(o.column))) {
      o.column = i;
      best_score = score;
    }
  }
  return o;
}

Outcome run_op(const Queue& q, const Row& r, bool outputs = true, uint32_t count_before = 0) {
  DeviceArray logits(q, DType::BF16, {2, r.K}), draws(q, DType::F32, {r.K}), column(q, DType::I32, {1}),
      nonfinite(q, DType::I32, {1}), guided(q, DType::F32, {r.K}), probs(q, DType::F32, {r.K});
  logits.upload(r.logits);
  draws.upload(r.draws);
  column.poison();
  guided.poison();
  probs.poison();
  nonfinite.upload(std::vector<uint32_t>{count_before});
  ops::LmSampleArgs a;
  a.logits = logits;
  if (r.recorded) a.draws = draws;
  a.column_out = column;
  a.nonfinite = nonfinite;
  if (outputs) {
    a.guided_out = guided;
    a.probs_out = probs;
  }
  a.seed = r.seed;
  a.iteration = r.iteration;
  a.draw_step = kStep;
  a.first_id = kFirstId;
  a.next_id = kNextId;
  a.cfg_scale = kCfg;
  a.cfg_top_k = kCfgTopK;
  a.top_k = kTopK;
  ops::lm_sample(q, a);
  Outcome o;
  o.column = column.download<int32_t>()[0];
  o.nonfinite = nonfinite.download<uint32_t>()[0];
  if (outputs) {
    o.guided = guided.download<float>();
    o.probs = probs.download<float>();
  }
  return o;
}

// Equal bits, or both NaN: IEEE 754 leaves an arithmetic NaN's payload to the platform (x86 passes the operand's
// quiet NaN on, 0x7FC00000 from a bf16 NaN; the GPU writes its canonical 0x7FFFFFFF), and no consumer reads it.
bool same_value(float a, float b) { return std::memcmp(&a, &b, sizeof a) == 0 || (a != a && b != b); }

// A row of `kind` at width K.
Row make_row(int kind, int K, std::mt19937_64& rng) {
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_int_distribution<int> column(0, K - 1);
  Row r;
  r.K = K;
  r.logits.resize(2 * size_t(K));
  r.seed = rng();
  r.iteration = rng() % 9000;
  r.recorded = kind % 2 == 1 || kind == 4;  // kinds 3 and 4 rewrite the draws: recorded ones
  for (size_t i = 0; i < r.logits.size(); ++i) {
    float v = normal(rng) * (kind == 0 ? 3.0f : 1.0f);
    if (kind == 1) v = std::round(v * 2.0f) / 2.0f;  // few distinct values: ties everywhere
    if (kind == 2) v = 1.0f;                          // every column tied: every column kept
    r.logits[i] = to_bf16(v);
  }
  r.draws.resize(size_t(K));
  for (int i = 0; i < K; ++i) r.draws[size_t(i)] = sampler::exp1_draw(r.seed, r.iteration, kStep, id_of(i));
  if (kind == 3)  // zero and infinite draws on kept and dropped columns: scores of +0, -inf and +inf
    for (int n = 0; n < 200; ++n) r.draws[size_t(column(rng))] = n % 2 ? 0.0f : INFINITY;
  if (kind == 5)  // a few huge conditional logits: the rest of the row underflows to weight +0
    for (int n = 0; n < 3; ++n) r.logits[size_t(column(rng))] = to_bf16(80.0f);
  // NaN conditional logits of both signs: a few (they rank first), or enough for a NaN threshold. A negative NaN's
  // bits order below -inf, so a NaN ranked by its bits instead of first moves the threshold.
  if (kind == 6 || kind == 9)
    for (int n = 0; n < (kind == 6 ? 3 : 60); ++n)
      r.logits[size_t(column(rng))] = bf16{n % 2 ? uint16_t(0xFFC0) : uint16_t(0x7FC0)};
  if (kind == 7)  // infinities of both signs in both rows
    for (int n = 0; n < 6; ++n)
      r.logits[size_t(column(rng)) + (n % 2 ? size_t(K) : 0)] = bf16{n % 4 < 2 ? uint16_t(0x7F80) : uint16_t(0xFF80)};
  if (kind == 8)  // signed zeros tied at and around the thresholds
    for (size_t i = 0; i < r.logits.size(); ++i)
      r.logits[i] = i % 3 == 0 ? bf16{0x8000} : i % 3 == 1 ? bf16{0} : to_bf16(-0.5f);
  if (kind == 4) std::fill(r.draws.begin(), r.draws.end(), INFINITY);  // every score +0 or NaN: the whole row ties
  return r;
}

constexpr int kKinds = 10;
const int kWidths[] = {16385, 16896, 16384, 1000, 7, 1};

TEST(LmSample, TheDenseRulesBitsOnRowsOfEveryKind) {
  std::mt19937_64 rng(20261204);
  const Queue q = provider_queue(0);
  int rows = 0, column_mismatches = 0, differing_bits = 0, count_mismatches = 0;
  for (const int K : kWidths)
    for (int kind = 0; kind < kKinds; ++kind)
      for (int rep = 0; rep < 2; ++rep) {
        const Row r = make_row(kind, K, rng);
        const Outcome got = run_op(q, r), ref = dense_rule(r);
        SCOPED_TRACE("K " + std::to_string(K) + " kind " + std::to_string(kind) + " rep " + std::to_string(rep));
        EXPECT_EQ(got.column, ref.column);
        EXPECT_EQ(got.nonfinite, ref.nonfinite);
        column_mismatches += got.column != ref.column;
        count_mismatches += got.nonfinite != ref.nonfinite;
        int bits = 0;
        for (int i = 0; i < K; ++i)
          bits += !same_value(got.guided[size_t(i)], ref.guided[size_t(i)]) +
                  !same_value(got.probs[size_t(i)], ref.probs[size_t(i)]);
        EXPECT_EQ(bits, 0);
        differing_bits += bits;
        ++rows;
      }
  EXPECT_EQ(rows, int(std::size(kWidths)) * kKinds * 2);
  EXPECT_EQ(column_mismatches + count_mismatches + differing_bits, 0);
}

TEST(LmSample, ANaNThresholdDropsNothingAndNaNsRankFirst) {
  // 60 NaN conditional logits: the 50th largest is NaN, so no column is pre-filtered (c < NaN is false); the
  // columns with the best unconditional logits then decide.
  Row r;
  r.K = 300;
  r.logits.assign(600, to_bf16(0.0f));
  for (int i = 0; i < 60; ++i) r.logits[size_t(100 + i)] = bf16{0x7FC0};
  r.logits[size_t(300 + 250)] = to_bf16(5.0f);  // column 250: c = 0, u = 5: g = 5 + (0 - 5) 1.5 = -2.5
  r.logits[size_t(250)] = to_bf16(4.0f);        // c = 4: g = 5 + (4 - 5) 1.5 = 3.5, the best guided logit
  r.draws.assign(300, 1.0f);
  const Outcome got = run_op(provider_queue(0), r), ref = dense_rule(r);
  EXPECT_EQ(got.column, 250);
  EXPECT_EQ(ref.column, 250);
  EXPECT_FALSE(std::isinf(got.guided[0])) << "column 0 must not be pre-filtered under a NaN threshold";
  // 3 NaNs: they take ranks 1-3, so the threshold is the 47th largest number and columns below it are dropped.
  for (int i = 3; i < 60; ++i) r.logits[size_t(100 + i)] = to_bf16(0.0f);
  for (int i = 0; i < 300; ++i)
    if (i < 100 || i >= 103) r.logits[size_t(i)] = to_bf16(float(i % 97) / 8.0f);
  const Outcome few = run_op(provider_queue(0), r), few_ref = dense_rule(r);
  EXPECT_EQ(few.column, few_ref.column);
  int dropped = 0;
  for (int i = 0; i < 300; ++i) dropped += std::isinf(few.guided[size_t(i)]) && few.guided[size_t(i)] < 0;
  EXPECT_GE(dropped, 300 - 50 - 10) << "about K - cfg_top_k columns (ties kept) are dropped";
}

TEST(LmSample, CountAddsToTheCounterAndOutputsAreOptional) {
  std::mt19937_64 rng(7);
  const Queue q = provider_queue(0);
  const Row r = make_row(7, 16385, rng);
  const Outcome full = run_op(q, r, true, 5), bare = run_op(q, r, false, 0), ref = dense_rule(r);
  EXPECT_EQ(full.nonfinite, 5 + ref.nonfinite);
  EXPECT_EQ(bare.nonfinite, ref.nonfinite);
  EXPECT_GT(ref.nonfinite, 0u);
  EXPECT_EQ(bare.column, full.column);
  EXPECT_EQ(bare.column, ref.column);
}

TEST(LmSample, TheProviderUnderTestTookTheCalls) {
  const std::string name = provider_name() + ".lm_sample";
  bool enabled = false;
  const uint64_t before = provider_calls(name, enabled);
  ASSERT_TRUE(enabled) << name << " is not enabled (its ctest enables the opt-in CUDA provider)";
  std::mt19937_64 rng(11);
  run_op(provider_queue(0), make_row(0, 16385, rng));
  EXPECT_EQ(provider_calls(name, enabled), before + 1) << name;
}

TEST(LmSample, WidthsAboveTheCudaKernel) {
  std::mt19937_64 rng(13);
  const Row r = make_row(0, 16897, rng);
  if (!provider_is_cuda()) {
    EXPECT_EQ(run_op(provider_queue(0), r).column, dense_rule(r).column);
    return;
  }
  try {
    run_op(provider_queue(0), r);
    FAIL() << "K = 16,897 must be declined by the CUDA provider";
  } catch (const ops::MissingProvider& e) {
    EXPECT_NE(std::string(e.what()).find("lm_sample"), std::string::npos) << e.what();
  }
}

TEST(LmSample, TheEntryRefusesByName) {
  const Queue q = provider_queue(0);
  DeviceArray logits(q, DType::BF16, {2, 16}), three(q, DType::BF16, {3, 16}), draws(q, DType::F32, {15}),
      column(q, DType::I32, {1}), nonfinite(q, DType::I32, {1});
  const auto refusal = [&](ops::LmSampleArgs a) {
    try {
      ops::lm_sample(q, a);
    } catch (const std::invalid_argument& e) {
      return std::string(e.what());
    }
    return std::string("accepted");
  };
  ops::LmSampleArgs a;
  a.logits = logits;
  a.column_out = column;
  a.nonfinite = nonfinite;
  a.cfg_top_k = a.top_k = 50;
  ops::LmSampleArgs b = a;
  b.logits = three;
  EXPECT_NE(refusal(b).find("'logits'"), std::string::npos) << refusal(b);
  b = a;
  b.draws = draws;
  EXPECT_NE(refusal(b).find("'draws'"), std::string::npos) << refusal(b);
  b = a;
  b.cfg_top_k = 0;
  EXPECT_NE(refusal(b).find("cfg_top_k"), std::string::npos) << refusal(b);
  b = a;
  b.column_out = logits;
  EXPECT_NE(refusal(b).find("'column_out'"), std::string::npos) << refusal(b);
}

}  // namespace
}  // namespace music3::optest
