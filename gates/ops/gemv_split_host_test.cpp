// op_gemv_split_host: the GEMV's row split (engine/ops/cuda/gemv_split.h), on the CPU: for N rows on G <= N blocks
// (the LM's q|k|v, o, gate|up and down widths, the depth's, odd widths, and G from 1 through N at the H200's
// 132 x 2 blocks) the first block begins at row 0, the last ends at N, and every block owns at least one row, the
// blocks tiling [0, N) in order.
#include <gtest/gtest.h>

#include <cstdint>
#include <string>

#include "engine/ops/cuda/gemv_split.h"

namespace music3::optest {
namespace {

namespace gv = ops::gemv;

void check_split(int64_t n, int64_t blocks) {
  const std::string what = "N " + std::to_string(n) + " on " + std::to_string(blocks) + " blocks";
  ASSERT_EQ(gv::split_begin(0, blocks, n), 0) << what;
  ASSERT_EQ(gv::split_begin(blocks, blocks, n), n) << what;
  for (int64_t b = 0; b < blocks; ++b)
    ASSERT_LT(gv::split_begin(b, blocks, n), gv::split_begin(b + 1, blocks, n)) << what << ": block " << b
                                                                                 << " owns no row";
}

TEST(GemvSplit, BlocksTileTheRowsInOrder) {
  for (const int64_t n : {int64_t{6144}, int64_t{4096}, int64_t{24576}, int64_t{12288}, int64_t{896}, int64_t{640},
                          int64_t{384}, int64_t{130}, int64_t{7}, int64_t{1}})
    for (const int64_t blocks : {int64_t{1}, int64_t{2}, int64_t{3}, int64_t{7}, int64_t{132}, int64_t{263},
                                 int64_t{264}, int64_t{528}, n})
      if (blocks <= n) check_split(n, blocks);
}

}  // namespace
}  // namespace music3::optest
