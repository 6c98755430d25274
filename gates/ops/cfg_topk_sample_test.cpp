// cfg_topk_sample gate: the depth sampler against an independent f64 reference
// (naive rank count, f64 softmax, argmax p / E), the release's top-k semantics
// (ties at the threshold kept: more than 50 survivors), filtered codes never drawn,
// NaN/inf handling and the non-finite count, the sampled frequencies following p,
// and bit identity: across CPU thread counts, and between the CUDA and CPU providers. The kept set is probed
// code by code at the rank-k boundary (distinct values at top_k 49, 50, 51; ties at, across and beyond rank 50;
// -0 tied with +0 at the threshold; the boundary among codes >= 1024 at V = 2048 and 4096).
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <functional>
#include <limits>
#include <stdexcept>
#include <string>

#include "engine/ops/ops.h"
#include "engine/ops/sampler_math.h"
#include "gates/ops/support/numerics.h"
#include "gates/ops/support/provider_under_test.h"
#include "engine/core/device_array.h"

namespace music3::optest {
namespace {

constexpr float kCfg = 1.5f;
constexpr int kTopK = 50;
const bf16 kNaN{0x7FC0}, kPosInf{0x7F80}, kNegInf{0xFF80};

struct Sample {
  int32_t code;
  std::vector<float> guided;
  uint32_t nonfinite;
};

// logits: row 0 (conditional) then row 1 (unconditional), V each.
Sample sample(const Queue& q, const std::vector<bf16>& logits, const std::vector<float>& e, float cfg = kCfg,
              int top_k = kTopK, uint32_t nonfinite_before = 0) {
  const auto vocab = static_cast<int64_t>(e.size());
  DeviceArray lb(q, DType::BF16, {2, vocab}), eb(q, DType::F32, {vocab});
  DeviceArray gb(q, DType::F32, {vocab}), cb(q, DType::I32, {1}), nb(q, DType::I32, {1});
  lb.upload(logits);
  eb.upload(e);
  gb.poison();
  cb.poison();
  nb.upload(std::vector<uint32_t>{nonfinite_before});
  ops::cfg_topk_sample(q, {lb, eb, gb, cb, nb, cfg, top_k});
  return {cb.download<int32_t>()[0], gb.download<float>(), nb.download<uint32_t>()[0]};
}

std::vector<float> exp_draws_for(int64_t vocab, uint64_t key) {
  std::vector<float> e(static_cast<size_t>(vocab));
  for (size_t i = 0; i < e.size(); ++i) e[i] = sampler::exp1_draw(key, key >> 8, 1, static_cast<uint32_t>(i));
  return e;
}

double guided_f64(bf16 c, bf16 u, float cfg) {
  const double g = static_cast<double>(to_f32(u)) + (static_cast<double>(to_f32(c)) - to_f32(u)) * cfg;
  if (std::isnan(g)) return -1e9;
  return std::isinf(g) ? (g > 0 ? 1e9 : -1e9) : g;
}

struct Reference {
  int32_t code;
  bool near_tie;  // the two best scores within 1e-5 relative: f32 vs f64 may pick either
};

// Naive: keep_i = #{j : g_j > g_i} < top_k; p = softmax over the kept in f64; argmax p / E.
Reference reference(const std::vector<float>& guided, const std::vector<float>& e, int top_k) {
  const size_t vocab = guided.size();
  std::vector<bool> keep(vocab);
  double max_g = -INFINITY;
  for (size_t i = 0; i < vocab; ++i) {
    size_t greater = 0;
    for (size_t j = 0; j < vocab; ++j) greater += guided[j] > guided[i];
    keep[i] = greater < static_cast<size_t>(top_k);
    max_g = std::max(max_g, static_cast<double>(guided[i]));
  }
  double sum = 0;
  for (size_t i = 0; i < vocab; ++i) sum += keep[i] ? std::exp(guided[i] - max_g) : 0.0;
  double best = -1, second = -1;
  int32_t code = -1;
  for (size_t i = 0; i < vocab; ++i) {
    const double score = (keep[i] ? std::exp(guided[i] - max_g) / sum : 0.0) / e[i];
    if (score > best) {
      second = best;
      best = score;
      code = static_cast<int32_t>(i);
    } else if (score > second) {
      second = score;
    }
  }
  return {code, best - second <= 1e-5 * best};
}

std::vector<bf16> random_logits(int64_t vocab, uint64_t seed) { return normal_bf16(2 * vocab, seed, 2.5); }

TEST(CfgTopkSample, MatchesF64ReferenceOverManyDraws) {
  const int64_t vocab = 1024;
  int near_ties = 0, compared = 0;
  for (uint64_t c = 0; c < 400; ++c) {
    const auto logits = random_logits(vocab, 1000 + c);
    const auto e = exp_draws_for(vocab, c);
    const Sample s = sample(provider_queue(0), logits, e);
    ASSERT_EQ(s.nonfinite, 0u);
    for (int64_t i = 0; i < vocab; ++i) {
      const double want = guided_f64(logits[i], logits[vocab + i], kCfg);
      ASSERT_NEAR(s.guided[i], want, 1e-6 * std::fabs(want)) << "case " << c << " guided[" << i << "]";
    }
    const Reference r = reference(s.guided, e, kTopK);
    if (r.near_tie) {
      ++near_ties;
      continue;
    }
    ++compared;
    EXPECT_EQ(s.code, r.code) << provider_name() << " case " << c;
  }
  std::printf("[sampler] %s: %d of 400 cases compared, %d near ties skipped\n", provider_name().c_str(), compared,
              near_ties);
  EXPECT_LE(near_ties, 4);
  EXPECT_GE(compared, 396);
}

// 40 codes at 5.0, 60 tied at 4.0 (the 50th largest), the rest below: 100 survive.
// Code 999 is the last of the tied ones and has by far the smallest draw.
TEST(CfgTopkSample, TiesAtTheThresholdAreKept) {
  const int64_t vocab = 1024;
  std::vector<bf16> logits(2 * vocab);
  for (int64_t i = 0; i < vocab; ++i) {
    const float v = i < 40 ? 5.0f : (i >= 940 ? 4.0f : -1.0f - static_cast<float>(i % 7));
    logits[i] = logits[vocab + i] = to_bf16(v);  // cond == uncond: guided == v exactly
  }
  std::vector<float> e(vocab, 1.0f);
  e[999] = 1e-6f;
  const Sample s = sample(provider_queue(0), logits, e);
  EXPECT_EQ(s.code, 999);
  e[999] = 1.0f;
  e[120] = 1e-30f;  // below the threshold: filtered, whatever its draw
  EXPECT_NE(sample(provider_queue(0), logits, e).code, 120);
}

// The kept set, probed code by code: code j gets a tiny draw and every other code a huge one, so the sampler
// returns j exactly when j survives the top-k filter (a kept code scores ~1e28, a filtered one 0, the others
// ~1e-32). values[i] is code i's guided value (cond == uncond, so guided == the bf16 value exactly).
std::vector<bool> kept_set(const std::vector<float>& values, int top_k) {
  const auto vocab = static_cast<int64_t>(values.size());
  std::vector<bf16> logits(2 * values.size());
  for (int64_t i = 0; i < vocab; ++i) logits[i] = logits[vocab + i] = to_bf16(values[i]);
  std::vector<bool> kept(values.size());
  for (int64_t j = 0; j < vocab; ++j) {
    std::vector<float> e(values.size(), 1e30f);
    e[j] = 1e-30f;
    kept[j] = sample(provider_queue(0), logits, e, kCfg, top_k).code == j;
  }
  return kept;
}

// Codes beyond the first 1024, which the CUDA kernel holds as thread t's slots t + 1024 j, j >= 1 (the radix
// select's histograms over every slot, the tree's levels s >= 1024 inside a thread): V = 2048 and 4096, the 60
// largest values 9 - r/8 (ranks r = 1..60 over four binades, so the select's digits part before its last pass) all
// at codes >= 1024, every other code in [-5, -4]. Ranks 1..50 survive and 51..60 do not; with ranks 50 and 51 tied,
// 1..51 survive. Every kept weight lies beyond slot 1023: a sum that dropped those slots would be 0, every kept code
// would score +inf and the lowest kept code would win every probe.
TEST(CfgTopkSample, KeptSetBeyondTheFirst1024Codes) {
  for (const int64_t vocab : {2048, 4096})
    for (const bool tie : {false, true}) {
      std::vector<bf16> logits(2 * vocab);
      for (int64_t i = 0; i < vocab; ++i) logits[i] = to_bf16(-4.0f - static_cast<float>(i % 5) / 4.0f);
      std::vector<int64_t> code_of_rank(61);
      for (int r = 1; r <= 60; ++r) {
        code_of_rank[r] = 1024 + (int64_t(r) * 389) % (vocab - 1024);  // 389 is prime to 1024 and 3072: distinct
        logits[code_of_rank[r]] = to_bf16(9.0f - static_cast<float>(r) / 8.0f);
      }
      if (tie) logits[code_of_rank[51]] = logits[code_of_rank[50]];
      for (int64_t i = 0; i < vocab; ++i) logits[vocab + i] = logits[i];  // cond == uncond: guided == the value
      const int last_kept = tie ? 51 : 50;
      auto survives = [&](int64_t j) {
        std::vector<float> e(vocab, 1e30f);
        e[j] = 1e-30f;
        return sample(provider_queue(0), logits, e, kCfg, kTopK).code == j;
      };
      const std::string what = provider_name() + " V=" + std::to_string(vocab) + (tie ? " (ranks 50, 51 tied)" : "");
      for (int r = 1; r <= 60; ++r)
        EXPECT_EQ(survives(code_of_rank[r]), r <= last_kept) << what << ", rank " << r << ", code " << code_of_rank[r];
      for (int64_t j : {int64_t{0}, int64_t{1}, int64_t{1023}}) EXPECT_FALSE(survives(j)) << what << ", code " << j;
    }
}

// values[code_at_rank(r)] is the r-th largest (1-based), spread over the vocabulary by a fixed permutation so
// that rank and index disagree. Values 8 - r/16 are exact in bf16.
constexpr int64_t kRankVocab = 96;
int64_t code_at_rank(int r) { return (int64_t(r) * 37) % kRankVocab; }
std::vector<float> ranked_values() {
  std::vector<float> v(kRankVocab);
  for (int r = 1; r <= kRankVocab; ++r) v[code_at_rank(r)] = 8.0f - float(r) / 16.0f;
  return v;
}

std::string ranks_of(const std::vector<bool>& kept) {
  std::string out;
  for (int r = 1; r <= kRankVocab; ++r)
    if (kept[code_at_rank(r)]) out += std::to_string(r) + " ";
  return out;
}

// Distinct values: ranks 1..50 survive, rank 51 (the next code by mass) never does, at top_k 50, 49 and 51.
TEST(CfgTopkSample, KeptSetEndsExactlyAtRankK) {
  const auto values = ranked_values();
  for (int k : {kTopK - 1, kTopK, kTopK + 1}) {
    const auto kept = kept_set(values, k);
    for (int r = 1; r <= kRankVocab; ++r)
      EXPECT_EQ(kept[code_at_rank(r)], r <= k) << "top_k " << k << ", rank " << r << "; kept ranks: "
                                                << ranks_of(kept);
  }
}

// Ties at the boundary: ranks 50 and 51 tied -> both kept (51 survivors); ranks 51 and 52 tied (rank 50 alone)
// -> both filtered; ranks 48..53 tied -> all kept (each has 47 larger values).
TEST(CfgTopkSample, TiesAtRankKAreKeptAndTiesBeyondAreNot) {
  struct Tie {
    int first, last;
    int last_kept;
  };
  for (const Tie t : {Tie{50, 51, 51}, Tie{51, 52, 50}, Tie{48, 53, 53}}) {
    auto values = ranked_values();
    for (int r = t.first; r <= t.last; ++r) values[code_at_rank(r)] = values[code_at_rank(t.first)];
    const auto kept = kept_set(values, kTopK);
    for (int r = 1; r <= kRankVocab; ++r)
      EXPECT_EQ(kept[code_at_rank(r)], r <= t.last_kept)
          << "tie " << t.first << ".." << t.last << ", rank " << r << "; kept ranks: " << ranks_of(kept);
  }
}

TEST(CfgTopkSample, TopKOfAtLeastVKeepsEveryCode) {
  const int64_t vocab = 300;
  auto logits = random_logits(vocab, 5);
  std::vector<float> e(vocab, 1.0f);
  int64_t lowest = 0;
  for (int64_t i = 0; i < vocab; ++i) {
    logits[vocab + i] = logits[i];
    if (to_f32(logits[i]) < to_f32(logits[lowest])) lowest = i;
  }
  e[lowest] = 1e-30f;
  EXPECT_EQ(sample(provider_queue(0), logits, e, kCfg, static_cast<int>(vocab)).code, lowest);
  EXPECT_EQ(sample(provider_queue(0), logits, e, kCfg, 5000).code, lowest);
  EXPECT_NE(sample(provider_queue(0), logits, e, kCfg, kTopK).code, lowest);
}

// -0 and +0 are one value: with cfg 0, u = +0 or -0 and c = -1 give g = +0 or -0 (u + (-0)), 50 of each, and
// every other code g = -5; at top_k 50 the threshold is 0 and all 100 zeros are kept (each has no larger value),
// so a -0 code with the smallest draw wins. A selection that ordered -0 below +0 would filter it.
TEST(CfgTopkSample, SignedZerosTieAtTheThreshold) {
  const int64_t vocab = 1024;
  std::vector<bf16> logits(2 * vocab, to_bf16(-1.0f));
  for (int64_t i = 0; i < vocab; ++i) logits[vocab + i] = to_bf16(-5.0f);
  for (int64_t i = 0; i < 100; ++i) logits[vocab + i] = bf16{static_cast<uint16_t>(i % 2 ? 0x8000 : 0x0000)};
  std::vector<float> e = exp_draws_for(vocab, 41);
  for (float& x : e) x = std::max(x, 0.5f);
  e[1] = 1e-6f;  // code 1: u = -0, so g = -0
  const Sample s = sample(provider_queue(0), logits, e, 0.0f, kTopK);
  EXPECT_EQ(f32_bits(s.guided[1]), 0x80000000u) << provider_name();
  EXPECT_EQ(f32_bits(s.guided[0]), 0x00000000u) << provider_name();
  EXPECT_EQ(s.code, 1) << provider_name();
}

// NaN and -inf guided values become -1e9, +inf becomes 1e9; the count covers the raw
// logits of both rows and adds to the counter's previous value.
TEST(CfgTopkSample, NonFiniteLogitsAreMappedAndCounted) {
  const int64_t vocab = 1024;
  auto logits = random_logits(vocab, 6);
  logits[10] = kNaN;              // cond NaN           -> guided NaN  -> -1e9
  logits[vocab + 20] = kPosInf;   // uncond +inf        -> inf - inf   -> -1e9
  logits[30] = kNegInf;           // cond -inf          -> -inf        -> -1e9
  logits[vocab + 40] = kNaN;      // uncond NaN         -> -1e9
  const auto e = exp_draws_for(vocab, 7);
  const Sample s = sample(provider_queue(0), logits, e, kCfg, kTopK, 5);
  EXPECT_EQ(s.nonfinite, 5u + 4u);
  for (int64_t i : {10, 20, 30, 40}) EXPECT_EQ(s.guided[i], -1e9f) << i;
  EXPECT_TRUE(s.code != 10 && s.code != 20 && s.code != 30 && s.code != 40);

  logits[50] = kPosInf;  // cond +inf, uncond finite -> +inf -> 1e9: certain to win
  const Sample t = sample(provider_queue(0), logits, e, kCfg, kTopK, 0);
  EXPECT_EQ(t.guided[50], 1e9f);
  EXPECT_EQ(t.code, 50);
  EXPECT_EQ(t.nonfinite, 5u);
}

// A zero draw makes a kept code certain, as E = 0 does in torch's p / E, and leaves
// a filtered code impossible. (exp1_draw itself once gave -0 when its 24-bit uniform
// rounded to 1, at seed 1234, frame 16501, step 1, i 756; with 23 bits it cannot.)
TEST(CfgTopkSample, AZeroDrawOfEitherSignWinsOnlyForAKeptCode) {
  const int64_t vocab = 1024;
  const auto logits = random_logits(vocab, 8);
  const auto e = exp_draws_for(vocab, 9);
  const Sample base = sample(provider_queue(0), logits, e);
  std::vector<float> guided = base.guided;
  std::sort(guided.begin(), guided.end(), std::greater<float>());
  int64_t kept = -1, filtered = -1;  // the 10th largest and the smallest guided value
  for (int64_t i = 0; i < vocab; ++i) {
    if (base.guided[i] == guided[9]) kept = i;
    if (base.guided[i] == guided[vocab - 1]) filtered = i;
  }
  ASSERT_GE(kept, 0);
  ASSERT_GE(filtered, 0);
  EXPECT_GT(sampler::exp1_draw(1234, 16501, 1, 756), 0.0f);  // the key that once drew -0
  for (float zero : {0.0f, -0.0f}) {
    auto z = e;
    z[kept] = zero;
    EXPECT_EQ(sample(provider_queue(0), logits, z).code, kept) << "E = " << zero;
    z = e;
    z[filtered] = zero;
    EXPECT_EQ(sample(provider_queue(0), logits, z).code, base.code) << "E = " << zero;
  }
}

// The CUDA kernel holds a row in shared memory (V <= 4096) and refuses more by
// name; the CPU provider has no such limit.
TEST(CfgTopkSample, VocabularyAboveTheCudaLimit) {
  const int64_t vocab = 4097;
  const auto logits = random_logits(vocab, 10);
  const auto e = exp_draws_for(vocab, 11);
  if (!provider_is_cuda()) {
    const Sample s = sample(provider_queue(0), logits, e);
    EXPECT_TRUE(s.code >= 0 && s.code < vocab);
    return;
  }
  try {
    sample(provider_queue(0), logits, e);
    FAIL() << "expected std::invalid_argument";
  } catch (const std::invalid_argument& err) {
    EXPECT_NE(std::string(err.what()).find("'logits'"), std::string::npos) << err.what();
    EXPECT_NE(std::string(err.what()).find("4097"), std::string::npos) << err.what();
  }
}

// Six codes with p = (0.4, 0.25, 0.15, 0.1, 0.07, 0.03) (as bf16 logits): over 20000
// keyed draws every frequency is within 0.015 of p (about 4 sd at p = 0.4).
TEST(CfgTopkSample, FrequenciesFollowTheProbabilities) {
  const double p[] = {0.4, 0.25, 0.15, 0.1, 0.07, 0.03};
  const int64_t vocab = 6;
  std::vector<bf16> logits(2 * vocab);
  for (int64_t i = 0; i < vocab; ++i) logits[i] = logits[vocab + i] = bf16_from_f64(std::log(p[i]));
  double z = 0, exact_p[6];
  for (int64_t i = 0; i < vocab; ++i) z += std::exp(to_f32(logits[i]));
  for (int64_t i = 0; i < vocab; ++i) exact_p[i] = std::exp(to_f32(logits[i])) / z;
  const int draws = 20000;
  std::vector<int> count(vocab, 0);
  const Queue q = provider_queue(0);
  for (int d = 0; d < draws; ++d) {
    std::vector<float> e(vocab);
    for (int64_t i = 0; i < vocab; ++i) e[i] = sampler::exp1_draw(77, static_cast<uint64_t>(d), 2, static_cast<uint32_t>(i));
    const int32_t code = sample(q, logits, e).code;
    ASSERT_TRUE(code >= 0 && code < vocab);
    ++count[code];
  }
  for (int64_t i = 0; i < vocab; ++i) EXPECT_NEAR(count[i] / static_cast<double>(draws), exact_p[i], 0.015) << i;
}

// Cases spanning vocab sizes (power of two or not), top_k, cfg and non-finite inputs.
struct Case {
  std::vector<bf16> logits;
  std::vector<float> e;
  float cfg;
  int top_k;
};

std::vector<Case> varied_cases() {
  std::vector<Case> cases;
  const int64_t vocabs[] = {1, 3, 50, 1000, 1024, 4096};
  const int top_ks[] = {1, 50, 5000};
  const float cfgs[] = {1.5f, 0.0f, -2.0f};
  uint64_t seed = 1;
  for (int64_t v : vocabs)
    for (int k : top_ks)
      for (float cfg : cfgs) {
        Case c{random_logits(v, seed), exp_draws_for(v, seed), cfg, k};
        if (v > 10 && seed % 2) {
          c.logits[seed % v] = kNaN;
          c.logits[v + (seed * 7) % v] = kPosInf;
        }
        if (seed % 5 == 0)  // a flat row: every guided value tied
          for (auto& x : c.logits) x = to_bf16(0.5f);
        cases.push_back(std::move(c));
        ++seed;
      }
  return cases;
}

TEST(CfgTopkSample, BitsDoNotDependOnThreadsOrMatchTheCpuProvider) {
  for (const Case& c : varied_cases()) {
    const Sample cpu = sample(cpu_queue(1), c.logits, c.e, c.cfg, c.top_k, 3);
    const Sample other = provider_is_cuda() ? sample(provider_queue(0), c.logits, c.e, c.cfg, c.top_k, 3)
                                            : sample(cpu_queue(2), c.logits, c.e, c.cfg, c.top_k, 3);
    const std::string what = provider_name() + " V=" + std::to_string(c.e.size()) + " top_k=" +
                             std::to_string(c.top_k) + " cfg=" + std::to_string(c.cfg);
    EXPECT_EQ(other.code, cpu.code) << what;
    EXPECT_EQ(other.nonfinite, cpu.nonfinite) << what;
    EXPECT_EQ(bits(other.guided), bits(cpu.guided)) << what;
  }
}

}  // namespace
}  // namespace music3::optest
