// The rotated q|k heads cuda.self_attention.cudnn feeds cuDNN (which cannot fuse our RoPE), every q and k head of
// qkv [S*B, 3 H D] (rows [token][batch]) rotated over its first `rot` dims by rope_pair (rope_pair.cuh: the
// rotation's arithmetic and bits) at the position of its token (row / batch):
// - rope_qk_rows: into dst [S*B, 2 H D], the other dims copied; qkv is only read;
// - rope_qk_in_place: within qkv, only the rotated dims read and written (QkvAfter::scratch).
// Enqueued on `stream`; throws naming the op when the launch fails.
// Thread-safety: stateless; callers order their own buffers on the stream.
#pragma once
#include <cuda_runtime_api.h>

#include <cstdint>

#include "engine/core/bf16.h"

namespace music3::ops {

void rope_qk_rows(const bf16* qkv, bf16* dst, int64_t rows, int batch, int heads, int dim, const bf16* cos,
                  const bf16* sin, int rot, cudaStream_t stream);
void rope_qk_in_place(bf16* qkv, int64_t rows, int batch, int heads, int dim, const bf16* cos, const bf16* sin, int rot,
                      cudaStream_t stream);

}  // namespace music3::ops
