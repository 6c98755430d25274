// Gate lm.sampler_rank: both top-k rules of the LM sampler (lm_sampler.h) end
// exactly at their rank. The kept set is probed column by column: column j gets
// a tiny Exp(1) draw and every other column a huge one, so the sampled token is
// j's exactly when j survives both filters. Ranks are spread over the 16,385
// columns by a fixed permutation (rank and column disagree); values 8 - r/16
// are exact in bf16.
//  - top_k (the guided row): ranks 1..50 kept, 51.. never, and ties at / beyond
//  rank 50 as torch.topk's
//    threshold keeps them (ties with the 50th value kept, ties below it not);
//  - cfg_top_k (the conditional row's pre-filter): the same boundary, on the
//  conditional row alone: columns
//    ranked 51..60 by the conditional row are given the largest guided values,
//    and must still be filtered.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "engine/models/music3/lm/lm_ids.h"
#include "engine/models/music3/lm/lm_sampler.h"
#include "gates/lib/gate_env.h"
#include "gates/lib/gate_record.h"

namespace music3::gates {
namespace {

constexpr int K = lm::kSampledColumns;
constexpr int kRanked = 64;  // ranks placed; every other column sits far below, tied at -4

int column_at_rank(int r) { return int((int64_t(r) * 37) % K); }
int column_of(int32_t id) { return id == lm::kAudioEndId ? 0 : id - lm::kCodeOffset + 1; }

struct Rows {
  std::vector<float> cond = std::vector<float>(K, -4.0f), uncond = std::vector<float>(K, -4.0f);
};

Rows ranked() {
  Rows r;
  for (int k = 1; k <= kRanked; ++k)
    r.cond[size_t(column_at_rank(k))] = r.uncond[size_t(column_at_rank(k))] = 8.0f - float(k) / 16.0f;
  return r;
}

// Kept[r - 1] for ranks 1..kRanked.
std::vector<bool> kept_ranks(const Rows& rows, int cfg_top_k, int top_k) {
  std::vector<bf16> logits(2 * size_t(K));
  for (int i = 0; i < K; ++i) {
    logits[size_t(i)] = to_bf16(rows.cond[size_t(i)]);
    logits[size_t(K + i)] = to_bf16(rows.uncond[size_t(i)]);
  }
  std::vector<bool> kept;
  for (int r = 1; r <= kRanked; ++r) {
    std::vector<float> draws(size_t(K), 1e30f);
    const int j = column_at_rank(r);
    draws[size_t(j)] = 1e-30f;
    const lm::LmSample s =
        lm::lm_sample(logits.data(), draws.data(), lm::kCfgScale, cfg_top_k, top_k, nullptr, nullptr);
    kept.push_back(column_of(s.token) == j);
  }
  return kept;
}

void expect_kept_through(const std::vector<bool>& kept, int last_kept, const std::string& what) {
  std::string got;
  for (int r = 1; r <= kRanked; ++r)
    if (kept[size_t(r - 1)]) got += std::to_string(r) + " ";
  bool ok = true;
  for (int r = 1; r <= kRanked; ++r) {
    EXPECT_EQ(kept[size_t(r - 1)], r <= last_kept) << what << ": rank " << r << "; kept ranks: " << got;
    ok = ok && kept[size_t(r - 1)] == (r <= last_kept);
  }
  record("lm.sampler_rank", what, "kept_set_exact", ok, 1, BoundKind::Lower);
}

TEST(LmSamplerRank, TopKEndsAtRank50) {
  for (int k : {lm::kTopK - 1, lm::kTopK, lm::kTopK + 1})
    expect_kept_through(kept_ranks(ranked(), K, k), k, "top_k_" + std::to_string(k));
  expect_kept_through(kept_ranks(ranked(), lm::kCfgTopK, lm::kTopK), lm::kTopK, "release_50_50");
}

TEST(LmSamplerRank, TopKTiesAtTheBoundary) {
  struct Tie {
    int first, last, last_kept;
  };
  for (const Tie t : {Tie{50, 51, 51}, Tie{51, 52, 50}, Tie{48, 53, 53}}) {
    Rows rows = ranked();
    const size_t head = size_t(column_at_rank(t.first));
    for (int r = t.first; r <= t.last; ++r)
      rows.cond[size_t(column_at_rank(r))] = rows.uncond[size_t(column_at_rank(r))] = rows.cond[head];
    const std::string what = "tie_" + std::to_string(t.first) + "_" + std::to_string(t.last);
    expect_kept_through(kept_ranks(rows, K, lm::kTopK), t.last_kept, "top_k_" + what);
    expect_kept_through(kept_ranks(rows, lm::kCfgTopK, K), t.last_kept, "cfg_top_k_" + what);
  }
}

// The pre-filter reads the conditional row: ranks 51..60 of the conditional row
// get an unconditional value 8 below theirs, so their guided value u + (c - u)
// * 1.5 = c + 4 is the largest of all; they stay filtered.
TEST(LmSamplerRank, CfgTopKFiltersOnTheConditionalRow) {
  Rows rows = ranked();
  for (int r = 51; r <= 60; ++r) rows.uncond[size_t(column_at_rank(r))] -= 8.0f;
  for (int k : {lm::kCfgTopK - 1, lm::kCfgTopK, lm::kCfgTopK + 1})
    expect_kept_through(kept_ranks(rows, k, K), k, "cfg_top_k_" + std::to_string(k));
}

}  // namespace
}  // namespace music3::gates

int main(int argc, char** argv) { return music3::gates::gate_main(argc, argv); }
