// Gate lm.sampler: the LM sampler against upstream's recorded sampling.
//  1. On every oracle iteration (upstream's own sliced lm_head logits and Exp(1) draws,
//     E taken at the full-vocabulary id of each column): the guided logits handed to
//     `_sample_top_k` equal upstream's bit for bit (-inf where the conditional top-50
//     pre-filter drops a column), the probabilities handed to torch.multinomial agree to
//     a few f32 ULPs (torch sums in another order), and the token is upstream's, a
//     difference allowed only at a shared near-tie.
//  2. Constructed cases: ties at the 50th value are all kept; the conditional pre-filter
//     decides (a column with the best guided logit outside the conditional top-50 is never
//     drawn); E is read at the full-vocabulary id; EOS (column 0) is drawable.
//  3. The sampler's sparse sums and scores (lm_sampler.h: only the kept columns) against
//     the dense rule written out here over every column (sampler_algo.h's full tree):
//     the same token, guided and probability bits, on random rows, rows of many ties, a
//     row where every column is kept, and draws with zeros and infinities (where a +0
//     score could tie), recorded and generated.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <random>

#include "engine/models/music3/lm/lm_ids.h"
#include "engine/models/music3/lm/lm_sampler.h"
#include "engine/ops/sampler_algo.h"
#include "engine/ops/sampler_math.h"
#include "gates/lib/gate_env.h"
#include "gates/lib/gate_record.h"
#include "gates/lib/near_tie.h"
#include "gates/lm/lm_oracle.h"

namespace music3::gates {
namespace {

constexpr int K = lm::kSampledColumns;

// Bound on |p - p_upstream| in f32 ULPs of p_upstream, over every kept column.
// Correct worst over the 24 cases: 4 ULPs (torch sums the softmax in another order);
// a softmax over a wrong candidate set or with a wrong max moves p by >= 1e5 ULPs.
constexpr double kProbUlpsBound = 16;

bool same_bits(float a, float b) {
  uint32_t x, y;
  std::memcpy(&x, &a, 4);
  std::memcpy(&y, &b, 4);
  return x == y;
}

double f32_ulps(float c, float r) {
  if (r == 0) return c == 0 ? 0 : std::numeric_limits<double>::infinity();
  int e;
  std::frexp(r, &e);
  return std::fabs(double(c) - double(r)) / std::ldexp(1.0, e - 24);
}

TEST(LmSampler, OracleIterationsDrawUpstreamsTokens) {
  int compared = 0, equal = 0;
  for (const auto& c : lm_cases()) {
    const LmGolden g = read_lm_golden(c);
    double worst_prob_ulps = 0;
    int guided_mismatch = 0, defects = 0, near_ties = 0, dropped_with_mass = 0;
    for (int64_t it = 0; it < g.iterations; ++it) {
      const std::vector<float> draws = g.sliced_draws(it);
      std::vector<float> guided(K), probs(K);
      const lm::LmSample s = lm::lm_sample(g.lm_logits.data() + it * 2 * K, draws.data(), lm::kCfgScale,
                                           lm::kCfgTopK, lm::kTopK, guided.data(), probs.data());
      const float* ref_guided = g.guided.data() + it * K;
      const float* ref_probs = g.lm_probs.data() + it * K;
      for (int i = 0; i < K; ++i) {
        guided_mismatch += !same_bits(guided[size_t(i)], ref_guided[i]);
        if (ref_probs[i] > 0) worst_prob_ulps = std::max(worst_prob_ulps, f32_ulps(probs[size_t(i)], ref_probs[i]));
        else dropped_with_mass += probs[size_t(i)] != 0.0f;
      }
      EXPECT_EQ(s.nonfinite, 0u);
      ++compared;
      const int32_t ref = g.tokens[size_t(it)];
      if (s.token == ref) {
        ++equal;
        continue;
      }
      auto col = [](int32_t id) { return id == lm::kAudioEndId ? 0 : id - lm::kCodeOffset + 1; };
      if (shared_near_tie(guided.data(), ref_guided, draws.data(), col(s.token), col(ref))) {
        ++near_ties;
      } else {
        ++defects;
        ADD_FAILURE() << c.name() << " iteration " << it << ": token " << s.token << " vs upstream " << ref
                      << " is not a shared near-tie";
      }
    }
    EXPECT_EQ(guided_mismatch, 0) << c.name();
    EXPECT_LE(worst_prob_ulps, kProbUlpsBound) << c.name();
    EXPECT_EQ(dropped_with_mass, 0) << c.name() << ": columns upstream drops that keep probability mass";
    record("lm.sampler", c.name(), "guided_bits.mismatches", guided_mismatch, 0);
    record("lm.sampler", c.name(), "probs.worst_f32_ulps", worst_prob_ulps, kProbUlpsBound);
    record("lm.sampler", c.name(), "tokens.defects", defects, 0);
    record("lm.sampler", c.name(), "tokens.near_ties", near_ties, 0, BoundKind::ReportOnly);
  }
  EXPECT_GT(equal, compared / 2);
}

// A logits pair with cond = uncond = base (guided = base) unless overridden.
struct Constructed {
  std::vector<bf16> logits = std::vector<bf16>(2 * size_t(K), to_bf16(-20.0f));
  std::vector<float> draws = std::vector<float>(size_t(K), 1.0f);
  void set(int col, float cond, float uncond) {
    logits[size_t(col)] = to_bf16(cond);
    logits[size_t(K + col)] = to_bf16(uncond);
  }
  lm::LmSample run(std::vector<float>* probs = nullptr) {
    std::vector<float> guided(K), p(K);
    auto s = lm::lm_sample(logits.data(), draws.data(), lm::kCfgScale, lm::kCfgTopK, lm::kTopK, guided.data(),
                           p.data());
    if (probs) *probs = p;
    return s;
  }
};

TEST(LmSampler, TiesAtTheFiftiethAreKept) {
  Constructed t;
  for (int i = 1; i <= 60; ++i) t.set(i, 1.0f, 1.0f);  // 60 equal candidates
  std::vector<float> p;
  t.run(&p);
  int kept = 0;
  for (int i = 0; i < K; ++i) kept += p[size_t(i)] > 0;
  EXPECT_EQ(kept, 60);
}

TEST(LmSampler, ConditionalPrefilterDecides) {
  Constructed t;
  for (int i = 1; i <= 50; ++i) t.set(i, 2.0f, 2.0f);  // the conditional top-50: guided 2
  t.set(100, 1.0f, -20.0f);  // outside the conditional top-50, guided = -20 + 21 * 1.5 = 11.5
  t.draws[100] = 1e-30f;     // would win any draw it took part in
  const auto s = t.run();
  EXPECT_NE(s.token, lm::column_id(100));
  EXPECT_GE(s.token, lm::column_id(1));
  EXPECT_LE(s.token, lm::column_id(50));
}

TEST(LmSampler, DrawsAreReadAtTheFullVocabularyIdAndEosIsDrawable) {
  Constructed t;
  for (int i = 0; i < 50; ++i) t.set(i, 1.0f, 1.0f);
  t.draws[0] = 1e-6f;  // column 0 = id 151670
  EXPECT_EQ(t.run().token, lm::kAudioEndId);
  t.draws[0] = 1.0f;
  t.draws[7] = 1e-6f;
  EXPECT_EQ(t.run().token, lm::kCodeOffset + 6);
  std::vector<float> generated(K);
  lm::lm_generated_draws(9, 3, generated.data());
  EXPECT_EQ(generated[1], sampler::exp1_draw(9, 3, lm::kLmDrawStep, uint32_t(lm::kCodeOffset)));
}

TEST(LmSampler, NonFiniteLogitsAreCounted) {
  Constructed t;
  for (int i = 0; i < 60; ++i) t.set(i, 1.0f, 1.0f);
  t.logits[5] = bf16{0x7FC0};            // NaN, conditional row
  t.logits[size_t(K) + 9] = bf16{0x7F80};  // +inf, unconditional row
  EXPECT_EQ(t.run().nonfinite, 2u);
}

// The rule over every column, as lm_sampler.h states it: the full tree sums and every column's score.
lm::LmSample dense_rule(const bf16* logits, const float* draws, std::vector<float>& guided, std::vector<float>& probs) {
  using namespace sampler;
  std::vector<float> c(K), g(K);
  for (int i = 0; i < K; ++i) {
    c[size_t(i)] = to_f32(logits[i]);
    const float u = to_f32(logits[K + i]);
    g[size_t(i)] = u + (c[size_t(i)] - u) * lm::kCfgScale;
  }
  auto kth = [](std::vector<float> v, int k) {
    std::sort(v.begin(), v.end(), std::greater<float>());
    return v[size_t(k - 1)];
  };
  const float ct = kth(c, lm::kCfgTopK);
  for (int i = 0; i < K; ++i) {
    if (c[size_t(i)] < ct) g[size_t(i)] = -std::numeric_limits<float>::infinity();
    guided[size_t(i)] = g[size_t(i)];
    const float v = g[size_t(i)];
    g[size_t(i)] = v != v ? -1e9f : std::isinf(v) ? (v > 0 ? 1e9f : -1e9f) : v;
  }
  const float t = kth(g, lm::kTopK), mx = *std::max_element(g.begin(), g.end());
  const uint32_t P = tree_size(K);
  std::vector<float> w(P, 0.0f), tree(P), p(P, 0.0f);
  for (int i = 0; i < K; ++i) w[size_t(i)] = kept_weight(g[size_t(i)], mx, !(g[size_t(i)] < t));
  tree = w;
  const float sum = tree_sum(tree.data(), P);
  for (uint32_t i = 0; i < P; ++i) p[i] = normalized(w[i], sum);
  tree = p;
  const float sum_p = tree_sum(tree.data(), P);
  lm::LmSample r;
  int best = 0;
  float best_score = 0;
  for (int i = 0; i < K; ++i) {
    probs[size_t(i)] = renormalized(p[size_t(i)], sum_p);
    const float score = draw_score(probs[size_t(i)], draws[i]);
    if (i == 0 || draw_beats(score, uint32_t(i), best_score, uint32_t(best))) {
      best = i;
      best_score = score;
    }
  }
  r.token = lm::column_id(best);
  return r;
}

TEST(LmSampler, TheSparseSumsAndScoresGiveTheDenseRulesBits) {
  std::mt19937_64 rng(20261202);
  std::normal_distribution<float> normal(0.0f, 1.0f);
  std::uniform_int_distribution<int> column(0, K - 1);
  int token_mismatches = 0, differing_bits = 0;
  for (int kind = 0; kind < 6; ++kind)
    for (int rep = 0; rep < 8; ++rep) {
      std::vector<bf16> logits(2 * size_t(K));
      std::vector<float> draws(K);
      const uint64_t seed = rng(), iteration = rng() % 9000;
      lm::lm_generated_draws(seed, iteration, draws.data());
      for (size_t i = 0; i < logits.size(); ++i) {
        float v = normal(rng) * (kind == 0 ? 3.0f : 1.0f);
        if (kind == 1) v = std::round(v * 2.0f) / 2.0f;  // few distinct values: ties everywhere
        if (kind == 2) v = 1.0f;                          // every column tied: every column kept
        logits[i] = to_bf16(v);
      }
      if (kind == 3)  // zero and infinite draws on kept and dropped columns: scores of +0, -inf and +inf
        for (int n = 0; n < 200; ++n) draws[size_t(column(rng))] = n % 2 ? 0.0f : INFINITY;
      if (kind == 4) std::fill(draws.begin(), draws.end(), INFINITY);  // every score +0 or NaN: the whole row ties
      if (kind == 5)  // a few huge conditional logits: the rest of the row underflows to weight +0
        for (int n = 0; n < 3; ++n) logits[size_t(column(rng))] = to_bf16(80.0f);
      std::vector<float> guided(K), probs(K), ref_guided(K), ref_probs(K);
      const bool generated = kind == 0 || kind == 1;
      const lm::LmSample got =
          generated ? lm::lm_sample(logits.data(), lm::LmDraws{nullptr, seed, iteration}, lm::kCfgScale, lm::kCfgTopK,
                                    lm::kTopK, guided.data(), probs.data())
                    : lm::lm_sample(logits.data(), draws.data(), lm::kCfgScale, lm::kCfgTopK, lm::kTopK,
                                    guided.data(), probs.data());
      const lm::LmSample ref = dense_rule(logits.data(), draws.data(), ref_guided, ref_probs);
      SCOPED_TRACE("kind " + std::to_string(kind) + " rep " + std::to_string(rep));
      EXPECT_EQ(got.token, ref.token);
      token_mismatches += got.token != ref.token;
      for (int i = 0; i < K; ++i)
        differing_bits +=
            !same_bits(guided[size_t(i)], ref_guided[size_t(i)]) + !same_bits(probs[size_t(i)], ref_probs[size_t(i)]);
    }
  EXPECT_EQ(differing_bits, 0);
  record("lm.sampler", "sparse_vs_dense", "tokens.mismatches", token_mismatches, 0);
  record("lm.sampler", "sparse_vs_dense", "guided_and_probs.differing_bits", differing_bits, 0);
}

}  // namespace
}  // namespace music3::gates

int main(int argc, char** argv) { return music3::gates::gate_main(argc, argv); }
