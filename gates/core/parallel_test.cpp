// core_parallel_test: parallel_for partitions [0, n) into contiguous chunks, covers
// every index exactly once, and gives bit-identical results for any thread count.
// main() sets MUSIC3_THREADS=4 before the worker pool exists, so the chunked path
// runs even on a one-core machine.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <bit>
#include <cmath>
#include <cstdlib>
#include <mutex>
#include <stdexcept>
#include <utility>
#include <vector>

#include "engine/core/parallel.h"

namespace {

const int kThreadCounts[] = {1, 2, 3, 4, 0};
const int64_t kSizes[] = {1, 2, 3, 4, 7, 100, 1001};

TEST(ParallelFor, ChunksTileTheRangeInOrder) {
  for (int64_t n : kSizes) {
    for (int threads : kThreadCounts) {
      std::mutex mu;
      std::vector<std::pair<int64_t, int64_t>> chunks;
      music3::parallel_for(n, threads, [&](int64_t b, int64_t e) {
        std::lock_guard l(mu);
        chunks.emplace_back(b, e);
      });
      std::sort(chunks.begin(), chunks.end());
      int64_t next = 0;
      for (auto [b, e] : chunks) {
        EXPECT_EQ(b, next) << "n=" << n << " threads=" << threads;
        EXPECT_LT(b, e) << "n=" << n << " threads=" << threads;
        next = e;
      }
      EXPECT_EQ(next, n) << "n=" << n << " threads=" << threads;
    }
  }
}

TEST(ParallelFor, UsesMoreThanOneChunkWhenAsked) {
  std::atomic<int> calls{0};
  music3::parallel_for(1000, 4, [&](int64_t, int64_t) { ++calls; });
  EXPECT_EQ(calls.load(), 4);
}

TEST(ParallelFor, EveryIndexRunsExactlyOnce) {
  for (int threads : kThreadCounts) {
    std::vector<std::atomic<int>> hits(1001);
    music3::parallel_for(1001, threads, [&](int64_t b, int64_t e) {
      for (int64_t i = b; i < e; ++i) ++hits[static_cast<size_t>(i)];
    });
    int wrong = 0;
    for (auto& h : hits) wrong += h.load() != 1;
    EXPECT_EQ(wrong, 0) << "threads=" << threads;
  }
}

std::vector<uint32_t> compute(int threads) {
  std::vector<float> out(4099);
  music3::parallel_for(static_cast<int64_t>(out.size()), threads, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i) {
      float acc = 0;
      for (int k = 1; k <= 64; ++k) acc += std::sin(static_cast<float>(i * k)) / static_cast<float>(k);
      out[static_cast<size_t>(i)] = acc;
    }
  });
  std::vector<uint32_t> bits;
  for (float f : out) bits.push_back(std::bit_cast<uint32_t>(f));
  return bits;
}

TEST(ParallelFor, ResultsAreBitIdenticalForAnyThreadCount) {
  auto reference = compute(1);
  for (int threads : kThreadCounts) EXPECT_EQ(compute(threads), reference) << "threads=" << threads;
}

TEST(ParallelFor, EmptyRangeNeverCalls) {
  bool called = false;
  music3::parallel_for(0, 4, [&](int64_t, int64_t) { called = true; });
  music3::parallel_for(-5, 4, [&](int64_t, int64_t) { called = true; });
  EXPECT_FALSE(called);
}

TEST(ParallelFor, NestedLoopsRunInlineAndCoverEverything) {
  std::vector<std::atomic<int>> hits(64 * 8);
  music3::parallel_for(64, 4, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i)
      music3::parallel_for(8, 4, [&](int64_t b2, int64_t e2) {
        for (int64_t j = b2; j < e2; ++j) ++hits[static_cast<size_t>(i * 8 + j)];
      });
  });
  int wrong = 0;
  for (auto& h : hits) wrong += h.load() != 1;
  EXPECT_EQ(wrong, 0);
}

TEST(ParallelFor, AnExceptionInAChunkReachesTheCaller) {
  EXPECT_THROW(music3::parallel_for(100, 4,
                                    [](int64_t b, int64_t) {
                                      if (b > 0) throw std::runtime_error("chunk failed");
                                    }),
               std::runtime_error);
  std::atomic<int64_t> sum{0};  // the pool still works afterwards
  music3::parallel_for(100, 4, [&](int64_t b, int64_t e) { sum += e - b; });
  EXPECT_EQ(sum.load(), 100);
}

}  // namespace

int main(int argc, char** argv) {
  setenv("MUSIC3_THREADS", "4", 1);
  ::testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
