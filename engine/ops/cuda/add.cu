// add on CUDA: out[m, n] = bf16( f32(a[m|0, n]) + f32(b[m|0, n]) ), a one-row operand broadcast over the rows.
// Two kernels with that per-element arithmetic: with no broadcast and 16-byte aligned tensors (the vocoder's
// residual identities, 135 MB per operand at full geometry, and the DiT's residual adds) the flat 8-wide form, each
// thread 8 consecutive elements by 16-byte loads and store, the last total % 8 elements by the first threads; else a
// grid-stride loop over the M x N outputs. Each element is read before it is written by the same thread, so out
// may be the very view of a or b (no __restrict__ here for that reason).
#include <algorithm>

#include "engine/core/bf16.h"
#include "engine/ops/cuda/cuda_providers.h"
#include "engine/ops/cuda/launch.h"
#include "engine/ops/ops.h"

namespace music3::ops {
namespace {

constexpr int kThreads = 256;

__global__ void add_kernel(const bf16* a, const bf16* b, bf16* out, int64_t cols, int64_t a_stride, int64_t b_stride,
                           int64_t total) {
  for (int64_t idx = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; idx < total;
       idx += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t m = idx / cols, n = idx % cols;
    out[idx] = to_bf16(to_f32(a[m * a_stride + n]) + to_f32(b[m * b_stride + n]));
  }
}

// Vector v < total / 8 covers elements 8 v .. 8 v + 7; thread i < total % 8 also takes element total8 * 8 + i.
__global__ void add_flat_vec8_kernel(const bf16* a, const bf16* b, bf16* out, int64_t total8, int tail) {
  const int64_t stride = static_cast<int64_t>(gridDim.x) * blockDim.x;
  const int64_t first = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x;
  for (int64_t v = first; v < total8; v += stride) {
    const uint4 av = reinterpret_cast<const uint4*>(a)[v], bv = reinterpret_cast<const uint4*>(b)[v];
    const bf16* ah = reinterpret_cast<const bf16*>(&av);
    const bf16* bh = reinterpret_cast<const bf16*>(&bv);
    uint4 ov;
    bf16* oh = reinterpret_cast<bf16*>(&ov);
#pragma unroll
    for (int j = 0; j < 8; ++j) oh[j] = to_bf16(to_f32(ah[j]) + to_f32(bh[j]));
    reinterpret_cast<uint4*>(out)[v] = ov;
  }
  if (first < tail) {
    const int64_t i = total8 * 8 + first;
    out[i] = to_bf16(to_f32(a[i]) + to_f32(b[i]));
  }
}

}  // namespace

void add_cuda(const Queue& q, const void* args) {
  const auto& p = *static_cast<const AddArgs*>(args);
  const int64_t cols = p.out.shape[1], total = p.out.numel();
  const bool full = p.a.shape[0] == p.out.shape[0] && p.b.shape[0] == p.out.shape[0];
  if (full && aligned16(p.a.data) && aligned16(p.b.data) && aligned16(p.out.data)) {
    add_flat_vec8_kernel<<<grid_for(std::max<int64_t>(total / 8, 1), kThreads), kThreads, 0, stream_of(q)>>>(
        p.a.as<const bf16>(), p.b.as<const bf16>(), p.out.as<bf16>(), total / 8, static_cast<int>(total % 8));
    check_launch("add");
    return;
  }
  add_kernel<<<grid_for(total, kThreads), kThreads, 0, stream_of(q)>>>(
      p.a.as<const bf16>(), p.b.as<const bf16>(), p.out.as<bf16>(), cols, p.a.shape[0] == 1 ? 0 : cols,
      p.b.shape[0] == 1 ? 0 : cols, total);
  check_launch("add");
}

}  // namespace music3::ops
