// The rotated q|k copy cuda.self_attention.cudnn feeds cuDNN (which cannot fuse our RoPE): from qkv [S*B, 3 H D]
// (rows [token][batch]) into dst [S*B, 2 H D], every q and k head rotated over its first `rot` dims by rope_pair
// (rope_pair.cuh: the rotation's arithmetic and bits) at the position of its token (row / batch), the other dims
// copied; qkv is only read. Enqueued on `stream`; throws naming the op when the launch fails.
// Thread-safety: stateless; callers order their own buffers on the stream.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>

#include "engine/core/bf16.h"

namespace music3::ops {

void rope_qk_rows(const bf16* qkv, bf16* dst, int64_t rows, int batch, int heads, int dim, const bf16* cos,
                  const bf16* sin, int rot, cudaStream_t stream);

}  // namespace music3::ops
