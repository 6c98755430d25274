// rope_qk_rows and rope_qk_in_place (rope_rows.h), each in two forms with one result: the rotation of every pair is
// rope_pair (the fused form's bits), only the loads and stores differ.
// - 16-byte form (dim % 8 == 0, rot % 16 == 0, qkv and dst 16-byte aligned: the DiT's shape): one block per row, a
//   thread per 8-dim vector of the row's 2 H q|k heads; the thread of vector v < rot / 16 of its head reads v and
//   its partner v + rot / 16, rotates the 8 pairs and writes both; a vector at or past rot / 8 is copied; the
//   vectors in between belong to their partner's thread.
// - scalar form (any other shape): the same split per dim, one bf16 per thread.
// In place, a thread per rotated pair group of a q|k head over the flat (row, head, group) index: the 16-byte form
// (the same condition) takes 8 pairs per thread, vectors v and v + rot / 16; the scalar form one pair. Each pair is
// read and written by its one thread, so no thread sees another's store.
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

// Pairs (lo at dim j, hi at dim j + rot / 2) of every q|k head, kPairs consecutive pairs per thread.
template <int kPairs>
__global__ void __launch_bounds__(kThreads)
    rope_qk_in_place_kernel(bf16* __restrict__ qkv, int64_t groups, int batch, int heads, int dim,
                            const bf16* __restrict__ cos, const bf16* __restrict__ sin, int rot) {
  const int64_t g = blockIdx.x * int64_t(kThreads) + threadIdx.x;
  if (g >= groups) return;
  const int half = rot / 2, per_head = half / kPairs;
  const int64_t row = g / (2 * int64_t(heads) * per_head);
  const int head = int(g / per_head % (2 * heads)), first = int(g % per_head) * kPairs;
  bf16* x = qkv + row * (3 * int64_t(heads) * dim) + int64_t(head) * dim + first;
  const int64_t p = row / batch;
  if constexpr (kPairs == kVec) {
    uint4 lo = *reinterpret_cast<const uint4*>(x), hi = *reinterpret_cast<const uint4*>(x + half);
    bf16* l = reinterpret_cast<bf16*>(&lo);
    bf16* h = reinterpret_cast<bf16*>(&hi);
#pragma unroll
    for (int k = 0; k < kVec; ++k) rope_pair(l[k], h[k], cos + p * rot, sin + p * rot, first + k, half);
    *reinterpret_cast<uint4*>(x) = lo;
    *reinterpret_cast<uint4*>(x + half) = hi;
  } else {
    bf16 lo = x[0], hi = x[half];
    rope_pair(lo, hi, cos + p * rot, sin + p * rot, first, half);
    x[0] = lo;
    x[half] = hi;
  }
}

}  // namespace

void rope_qk_in_place(bf16* qkv, int64_t rows, int batch, int heads, int dim, const bf16* cos, const bf16* sin, int rot,
                      cudaStream_t stream) {
  if (rows == 0) return;
  const bool vec8 = dim % kVec == 0 && rot % (2 * kVec) == 0 && aligned16(qkv);
  const int64_t groups = rows * 2 * heads * (rot / 2) / (vec8 ? kVec : 1);
  const auto blocks = static_cast<unsigned>((groups + kThreads - 1) / kThreads);
  if (vec8) {
    rope_qk_in_place_kernel<kVec><<<blocks, kThreads, 0, stream>>>(qkv, groups, batch, heads, dim, cos, sin, rot);
  } else {
    rope_qk_in_place_kernel<1><<<blocks, kThreads, 0, stream>>>(qkv, groups, batch, heads, dim, cos, sin, rot);
  }
  check_launch("self_attention (cudnn) rotary in place");
}

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
