// rope_qk_rows (rope_rows.h): one block per row, the threads over the row's 2 H q|k heads; the thread of dim
// c < rot / 2 reads the pair (c, c + rot / 2) and writes both rotated (rope_pair, the fused form's bits), a thread of
// dim c >= rot copies it, and a thread of dim rot / 2 <= c < rot has nothing to do.
#include "engine/ops/cuda/launch.h"
#include "engine/ops/cuda/rope_pair.cuh"
#include "engine/ops/cuda/rope_rows.h"

namespace music3::ops {
namespace {

constexpr int kThreads = 256;

__global__ void __launch_bounds__(kThreads)
    rope_qk_rows_kernel(const bf16* __restrict__ qkv, bf16* __restrict__ dst, int batch, int heads, int dim,
                        const bf16* __restrict__ cos, const bf16* __restrict__ sin, int rot) {
  const int64_t row = blockIdx.x, p = row / batch, width = int64_t(2) * heads * dim;
  const bf16* src = qkv + row * (3 * int64_t(heads) * dim);
  bf16* out = dst + row * width;
  const int half = rot / 2;
  for (int64_t idx = threadIdx.x; idx < width; idx += kThreads) {
    const int c = int(idx % dim);
    if (c < half) {
      bf16 lo = src[idx], hi = src[idx + half];
      rope_pair(lo, hi, cos + p * rot, sin + p * rot, c, half);
      out[idx] = lo;
      out[idx + half] = hi;
    } else if (c >= rot) {
      out[idx] = src[idx];
    }
  }
}

}  // namespace

void rope_qk_rows(const bf16* qkv, bf16* dst, int64_t rows, int batch, int heads, int dim, const bf16* cos,
                  const bf16* sin, int rot, cudaStream_t stream) {
  if (rows == 0) return;
  rope_qk_rows_kernel<<<static_cast<unsigned>(rows), kThreads, 0, stream>>>(qkv, dst, batch, heads, dim, cos, sin,
                                                                           rot);
  check_launch("self_attention (cudnn) rotary copy");
}

}  // namespace music3::ops
