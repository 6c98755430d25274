// The AR stage on synthetic weights, for bench-ar and ar-frame-breakdown: the LM's from bench-lm (lm_bench_weights.h)
// plus an embedding table, the depth stage's from depth_synthetic at the LM's width, through ArStage (the production
// call site) with `request` for both arms, and a prompt of kBenchPrompt text ids (both rows alike).
// Contract: make_ar_fixture() throws when the selector chose another LM arm than `request` asks for; "full" is the
// release geometry (the embedding table alone is 1.6 GB, filled in place), "small" the tiny depth stage widened to
// the small LM.
#pragma once
#include <memory>
#include <string>
#include <vector>

#include "engine/core/queue.h"
#include "engine/models/music3/ar/ar_stage.h"
#include "engine/runtime/arm.h"

namespace music3::bench {

inline constexpr uint64_t kBenchSeed = 0;
inline constexpr int kBenchPrompt = 300;

struct ArFixture {
  std::unique_ptr<ar::ArStage> stage;
  std::vector<int32_t> prompt;  // [2, kBenchPrompt]
};

std::unique_ptr<ArFixture> make_ar_fixture(const Queue& q, const std::string& geometry, runtime::ArmRequest request);

}  // namespace music3::bench
