// rope_qk_rows (rope_rows.h), in two forms with one result: the rotation of every pair is rope_pair (the fused
// form's bits), only the loads and stores differ.
// - 16-byte form (dim % 8 == 0, rot % 16 == 0, qkv and dst 16-byte aligned: the DiT's shape): one block per row, a
//   thread per 8-dim vector of the row's 2 H q|k heads; the thread of vector v < rot / 16 of its head reads v and
//   its partner v + rot / 16, rotates the 8 pairs and writes both; a vector at or past rot / 8 is copied; the
//   vectors in between belong to their partner's thread.
// - scalar form (any other shape): the same split per dim, one bf16 per thread.
#include "engine/ops/cuda/launch.h"
#include "engine/ops/cuda/rope_pair.cuh"
#include "engine/ops/cuda/rope_rows.h"

namespace music3::ops {
namespace {

constexpr int kThreads = 256;
constexpr int kVec = 8;  // bf16 per 16-byte vector

__global__ void __launch_bounds__(kThreads)
    rope_qk_rows_vec8_kernel(const bf16* __restrict__ qkv, bf16* __restrict__ dst, int batch, int heads, int dim,
                             const bf16* __restrict__ cos, const bf16* __restrict__ sin, int rot) {
  const int64_t row = blockIdx.x, p = row / batch, width = int64_t(2) * heads * dim;
  const uint4* src = reinterpret_cast<const uint4*>(qkv + row * (3 * int64_t(heads) * dim));
  uint4* out = reinterpret_cast<uint4*>(dst + row * width);
  const int vectors = int(width / kVec), head_vectors = dim / kVec, half = rot / 2, half_vectors = half / kVec;
  const bf16* c = cos + p * rot;
  const bf16* s = sin + p * rot;
  for (int v = threadIdx.x; v < vectors; v += kThreads) {
    const int first = (v % head_vectors) * kVec;  // the vector's first dim within its head
    if (first < half) {
      uint4 lo = src[v], hi = src[v + half_vectors];
      bf16* l = reinterpret_cast<bf16*>(&lo);
      bf16* h = reinterpret_cast<bf16*>(&hi);
#pragma unroll
      for (int k = 0; k < kVec; ++k) rope_pair(l[k], h[k], c, s, first + k, half);
      out[v] = lo;
      out[v + half_vectors] = hi;
    } else if (first >= rot) {
      out[v] = src[v];
    }
  }
}

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
  const bool vec8 = dim % kVec == 0 && rot % (2 * kVec) == 0 && aligned16(qkv) && aligned16(dst);
  if (vec8) {
    rope_qk_rows_vec8_kernel<<<static_cast<unsigned>(rows), kThreads, 0, stream>>>(qkv, dst, batch, heads, dim, cos,
                                                                                  sin, rot);
  } else {
    rope_qk_rows_kernel<<<static_cast<unsigned>(rows), kThreads, 0, stream>>>(qkv, dst, batch, heads, dim, cos, sin,
                                                                             rot);
  }
  check_launch("self_attention (cudnn) rotary copy");
}

}  // namespace music3::ops
