// How the GEMV's persistent grid (gemv_bt.cuh) splits N weight rows over G blocks: block b owns rows
// [begin(b), begin(b + 1)) with begin(b) = floor(N b / G), so for G <= N every block owns at least one row. Host and
// device (MUSIC3_HD), so a CPU gate (op_gemv_split_host) checks the split itself.
#pragma once
#include <cstdint>

#include "engine/core/bf16.h"  // MUSIC3_HD

namespace music3::ops::gemv {

// The first row of block b of `blocks` over n rows (b = blocks: n, the end of the last block).
MUSIC3_HD int64_t split_begin(int64_t b, int64_t blocks, int64_t n) { return n * b / blocks; }

}  // namespace music3::ops::gemv
