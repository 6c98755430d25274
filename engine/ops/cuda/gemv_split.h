// How the GEMV's persistent grid (gemv_bt.cuh) splits N weight rows over G blocks, and the inverse its tails need
// (qk_norm_rope_tail.cuh: how many blocks a head's rows meet). Block b owns rows [begin(b), begin(b + 1)) with
// begin(b) = floor(N b / G), so for G <= N every block owns at least one row. Host and device (MUSIC3_HD), so a CPU
// gate (op_gemv_split_host) checks the inverse against the split itself.
#pragma once
#include <cstdint>

#include "engine/core/bf16.h"  // MUSIC3_HD

namespace music3::ops::gemv {

// The first row of block b of `blocks` over n rows (b = blocks: n, the end of the last block).
MUSIC3_HD int64_t split_begin(int64_t b, int64_t blocks, int64_t n) { return n * b / blocks; }

// The block that owns `row`: the largest b with split_begin(b) <= row, i.e. n b < (row + 1) blocks.
MUSIC3_HD int64_t split_block_of(int64_t row, int64_t blocks, int64_t n) { return ((row + 1) * blocks - 1) / n; }

// How many blocks own a row of [first, last] (first <= last < n).
MUSIC3_HD int split_blocks_meeting(int64_t first, int64_t last, int64_t blocks, int64_t n) {
  return static_cast<int>(split_block_of(last, blocks, n) - split_block_of(first, blocks, n) + 1);
}

}  // namespace music3::ops::gemv
