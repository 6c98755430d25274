// The CPU arithmetic qk_norm_rope (lm_ops.h) is made of, shared by the CPU providers of qk_norm_rope and of
// self_attention's rotary form (transformer_ops.h). Not ops: no entry point validates their arguments (the
// callers' entry points did) and the registry does not know them.
//  head_rms_norm_cpu  in place on heads [first, first + count) of width D = w's of every row of x: rms_norm_cpu's
//                     arithmetic over the head (head_rms_norm.cpp)
//  rope_cpu           in place on heads [0, count), head_dim apart, of every row of x (rows [token][batch]): the
//                     first R dims (R = the tables' width) rotated at position pos0 + row / batch by qk_norm_rope's
//                     formula (rope.cpp); a position outside the tables throws std::out_of_range
// Work is split with parallel_for, so the bits never depend on Queue::threads. Thread-safety: as ops.h (the
// caller owns x for the call).
#pragma once
#include <cstdint>

#include "engine/core/queue.h"
#include "engine/core/tensor.h"

namespace music3::ops {

struct HeadRmsNormArgs {
  Tensor x, w;  // x [M, W] (in place), w [D]
  int first, count;
  float eps;
};
struct RopeArgs {
  Tensor x, cos, sin;  // x [T*B, W] (in place), cos/sin [P, R]
  int64_t pos0;        // the position of the rows of token 0
  int count, batch;
  int head_dim;  // the heads' stride in x (>= R)
};

void head_rms_norm_cpu(const Queue& q, const HeadRmsNormArgs& a);
void rope_cpu(const Queue& q, const RopeArgs& a);

}  // namespace music3::ops
