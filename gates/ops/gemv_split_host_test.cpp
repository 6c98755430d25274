// op_gemv_split_host: the GEMV's row split and its inverse (engine/ops/cuda/gemv_split.h), on the CPU, against brute
// force over every block: for N rows on G <= N blocks (the LM's q|k|v, o, gate|up and down widths, the depth's, odd
// widths, and G from 1 through N at the H200's 132 x 2 blocks) every block owns at least one row and the blocks tile
// [0, N) in order; split_block_of(row) is the block whose range holds the row, for every row; and
// split_blocks_meeting() counts the blocks whose range meets a window, for every 128-row head (the fused q|k|v
// epilogue's election, qk_norm_rope_tail.cuh) and for windows of 1 and 37 rows.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <string>

#include "engine/ops/cuda/gemv_split.h"

namespace music3::optest {
namespace {

namespace gv = ops::gemv;

int brute_meeting(int64_t first, int64_t last, int64_t blocks, int64_t n) {
  int count = 0;
  for (int64_t b = 0; b < blocks; ++b)
    if (gv::split_begin(b, blocks, n) <= last && gv::split_begin(b + 1, blocks, n) > first) ++count;
  return count;
}

void check_split(int64_t n, int64_t blocks) {
  const std::string what = "N " + std::to_string(n) + " on " + std::to_string(blocks) + " blocks";
  ASSERT_EQ(gv::split_begin(0, blocks, n), 0) << what;
  ASSERT_EQ(gv::split_begin(blocks, blocks, n), n) << what;
  int64_t wrong_owner = 0;
  for (int64_t b = 0; b < blocks; ++b) {
    const int64_t begin = gv::split_begin(b, blocks, n), end = gv::split_begin(b + 1, blocks, n);
    ASSERT_LT(begin, end) << what << ": block " << b << " owns no row";
    for (int64_t row = begin; row < end; ++row) wrong_owner += gv::split_block_of(row, blocks, n) != b;
  }
  EXPECT_EQ(wrong_owner, 0) << what << ": rows whose owner split_block_of() misnames";
  int64_t wrong_count = 0;
  for (const int64_t width : {int64_t{128}, int64_t{1}, int64_t{37}})
    for (int64_t first = 0; first < n; first += width) {
      const int64_t last = std::min(first + width, n) - 1;
      wrong_count += gv::split_blocks_meeting(first, last, blocks, n) != brute_meeting(first, last, blocks, n);
    }
  EXPECT_EQ(wrong_count, 0) << what << ": windows whose block count split_blocks_meeting() misses";
}

TEST(GemvSplit, InverseAndCountsMatchTheSplit) {
  for (const int64_t n : {int64_t{6144}, int64_t{4096}, int64_t{24576}, int64_t{12288}, int64_t{896}, int64_t{640},
                          int64_t{384}, int64_t{130}, int64_t{7}, int64_t{1}})
    for (const int64_t blocks : {int64_t{1}, int64_t{2}, int64_t{3}, int64_t{7}, int64_t{132}, int64_t{263},
                                 int64_t{264}, int64_t{528}, n})
      if (blocks <= n) check_split(n, blocks);
}

}  // namespace
}  // namespace music3::optest
