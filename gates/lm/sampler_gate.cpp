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
// The rule's sparse sums and scores against the dense rule over every column are the op
// gate's (gates/ops/lm_sample_test.cpp: op_lm_sample_cpu), on the same function.
#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>

#include "engine/models/music3/lm/lm_ids.h"
#include "engine/models/music3/lm/lm_sampler.h"
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

}  // namespace
}  // namespace music3::gates

int main(int argc, char** argv) { return music3::gates::gate_main(argc, argv); }
