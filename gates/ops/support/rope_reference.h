// The rotation of qk_norm_rope and of self_attention's rotary form (lm_ops.h, transformer_ops.h) computed on the
// host, independently of every provider: x holds rows [token][batch] of `width` elements; heads [0, count),
// `head_dim` apart, have their first R dims (R = the tables' width `rot`) rotated at position pos0 + row / batch:
// out[i] = bf16( bf16(x[i] * cos[p, i]) + bf16(rot[i] * sin[p, i]) ), rot[i] = -x[i + R/2] below R/2, x[i - R/2]
// above. A row whose position lies outside the tables cos/sin [P, R] is returned as it was (what the CUDA
// providers leave there). Pure function: thread-safe.
#pragma once
#include <cstdint>
#include <vector>

#include "engine/core/bf16.h"

namespace music3::optest {

struct RopeLayout {
  int64_t width;     // elements per row
  int count;         // heads rotated, from head 0
  int64_t head_dim;  // the heads' stride (>= rot)
  int64_t batch;     // rows per token
  int64_t pos0;      // the position of token 0
  int64_t rot;       // the tables' width R (even)
};

std::vector<bf16> rope_reference(std::vector<bf16> x, const RopeLayout& l, const std::vector<bf16>& cos,
                                 const std::vector<bf16>& sin);

}  // namespace music3::optest
