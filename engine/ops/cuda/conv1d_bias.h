// The bias broadcast that conv1d providers accumulating into their output start from (conv1d.cu): out[i] =
// bias[(i / step) % cout] for i < total (step Tout for [B, Cout, Tout], 1 for [B, Tout, Cout]), bf16 to bf16 (exact), enqueued on `stream`; throws naming the op when the
// launch fails.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>

#include "engine/core/bf16.h"

namespace music3::ops {

void conv1d_fill_bias(const bf16* bias, bf16* out, int64_t cout, int64_t step, int64_t total, cudaStream_t stream);

}  // namespace music3::ops
