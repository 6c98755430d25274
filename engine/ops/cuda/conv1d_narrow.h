// The direct kernel cuda.conv1d runs for narrow outputs (conv1d_narrow.cu states its sum and what it declines):
// conv1d_narrow() enqueues the conv on `stream` and returns true, or returns false having enqueued nothing.
#pragma once
#include <cuda_runtime_api.h>

#include "engine/ops/vocoder_ops.h"

namespace music3::ops {

inline constexpr int kNarrowMaxOut = 4;  // output channels the direct kernel takes

bool conv1d_narrow(const Conv1dArgs& p, cudaStream_t stream);

}  // namespace music3::ops
