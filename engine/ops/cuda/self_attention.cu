// self_attention on CUDA: a flash-style kernel on the tensor cores (mma.sync m16n8k16, bf16 in, f32 accumulate).
// One block per (64-query tile, head, batch), four warps of 16 query rows each. The head is zero-padded in shared
// memory to HD (16, 32, 48 or 64, the next multiple of 16 >= D), which leaves q.k and the written dims unchanged.
// Keys go in tiles of 64 (the CPU provider's tile), loaded whole (Q once; K and V per tile; rows past S zero;
// 16-byte loads when D == HD):
//   s = f32 (q.k) via mma, scaled by scale * log2(e) (keys past S: -inf);
//   per row: the tile max into the running max m (a quad shuffle over the four lanes sharing a row), the f32
//   accumulator and the lane's partial row sum rescaled by exp2(m_old - m); p = exp2(s - m) (= exp(scale q.k -
//   max)); the partial sum adds p unrounded; P is rounded to bf16 and fed to the P.V mma straight from the score
//   registers;
//   at the end the four partial sums of a row are added (quad shuffle) and out = bf16(acc / sum), for dims < D.
// The arithmetic differs from the CPU provider only in summation orders and exp2 vs exp: the band is the contract.
#include <cstdint>

#include "engine/core/bf16.h"
#include "engine/ops/cuda/cuda_providers.h"
#include "engine/ops/cuda/launch.h"
#include "engine/ops/transformer_ops.h"

namespace music3::ops {
namespace {

constexpr int kWarps = 4, kThreads = 32 * kWarps;
constexpr int kQueryTile = 16 * kWarps;  // 64 query rows
constexpr int kKeyTile = 64;
constexpr int kMaxHead = 64;
constexpr float kLog2e = 1.4426950408889634f;

__device__ __forceinline__ uint32_t pack_bf16(float lo, float hi) {
  return uint32_t(to_bf16(lo).bits) | (uint32_t(to_bf16(hi).bits) << 16);
}
__device__ __forceinline__ uint32_t pair_at(const bf16* p) { return *reinterpret_cast<const uint32_t*>(p); }
__device__ __forceinline__ uint32_t two_at(const bf16* lo, const bf16* hi) {
  return uint32_t(lo->bits) | (uint32_t(hi->bits) << 16);
}

// c += a . b for one 16x8x16 tile.
__device__ __forceinline__ void mma_bf16(float (&c)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// rows [first, first + 64) of one head (columns col .. col + D of rows t * B + b) into dst[64][HD + 8], zero past
// `tokens` and past D. `vec` (D == HD, 16-byte aligned rows and columns): 8 elements per 16-byte load.
template <int HD>
__device__ __forceinline__ void load_tile(bf16 (*dst)[HD + 8], const bf16* __restrict__ qkv, int64_t row_stride,
                                          int64_t col, int64_t first, int64_t tokens, int batch, int b, int dim,
                                          bool vec) {
  if (vec) {
    for (int idx = threadIdx.x; idx < kKeyTile * HD / 8; idx += kThreads) {
      const int r = idx / (HD / 8), c = idx % (HD / 8) * 8;
      const int64_t t = first + r;
      *reinterpret_cast<uint4*>(&dst[r][c]) =
          t < tokens ? *reinterpret_cast<const uint4*>(qkv + (t * batch + b) * row_stride + col + c) : uint4{};
    }
    return;
  }
  for (int idx = threadIdx.x; idx < kKeyTile * HD; idx += kThreads) {
    const int r = idx / HD, c = idx % HD;
    const int64_t t = first + r;
    dst[r][c] = (t < tokens && c < dim) ? qkv[(t * batch + b) * row_stride + col + c] : bf16{};
  }
}

template <int HD>
__global__ void __launch_bounds__(kThreads)
    self_attention_kernel(const bf16* __restrict__ qkv, bf16* __restrict__ out, int64_t tokens, int batch,
                          int heads, int dim, float scale_log2, bool vec) {
  __shared__ __align__(16) bf16 qs[kQueryTile][HD + 8];
  __shared__ __align__(16) bf16 ks[kKeyTile][HD + 8];
  __shared__ __align__(16) bf16 vs[kKeyTile][HD + 8];
  const int b = blockIdx.z, h = blockIdx.y;
  const int64_t q0 = int64_t(blockIdx.x) * kQueryTile;
  const int64_t width = int64_t(heads) * dim, row_stride = 3 * width;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, tq = lane % 4;

  load_tile<HD>(qs, qkv, row_stride, int64_t(h) * dim, q0, tokens, batch, b, dim, vec);
  __syncthreads();
  uint32_t qa[HD / 16][4];
  const int qr = warp * 16 + g;
#pragma unroll
  for (int kk = 0; kk < HD / 16; ++kk) {
    qa[kk][0] = pair_at(&qs[qr][kk * 16 + tq * 2]);
    qa[kk][1] = pair_at(&qs[qr + 8][kk * 16 + tq * 2]);
    qa[kk][2] = pair_at(&qs[qr][kk * 16 + tq * 2 + 8]);
    qa[kk][3] = pair_at(&qs[qr + 8][kk * 16 + tq * 2 + 8]);
  }
  float acc[HD / 8][4] = {};
  float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.0f, 0.0f};  // rows g and g + 8 of the warp

  for (int64_t k0 = 0; k0 < tokens; k0 += kKeyTile) {
    __syncthreads();  // the previous tile's K and V are no longer read
    load_tile<HD>(ks, qkv, row_stride, width + int64_t(h) * dim, k0, tokens, batch, b, dim, vec);
    load_tile<HD>(vs, qkv, row_stride, 2 * width + int64_t(h) * dim, k0, tokens, batch, b, dim, vec);
    __syncthreads();
    float s[kKeyTile / 8][4];
#pragma unroll
    for (int n = 0; n < kKeyTile / 8; ++n) {
      s[n][0] = s[n][1] = s[n][2] = s[n][3] = 0.0f;
#pragma unroll
      for (int kk = 0; kk < HD / 16; ++kk)
        mma_bf16(s[n], qa[kk], pair_at(&ks[n * 8 + g][kk * 16 + tq * 2]), pair_at(&ks[n * 8 + g][kk * 16 + tq * 2 + 8]));
    }
    float tile_max[2] = {-INFINITY, -INFINITY};
#pragma unroll
    for (int n = 0; n < kKeyTile / 8; ++n)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        const int64_t key = k0 + n * 8 + tq * 2 + (e & 1);
        s[n][e] = key < tokens ? s[n][e] * scale_log2 : -INFINITY;
        tile_max[e / 2] = fmaxf(tile_max[e / 2], s[n][e]);
      }
    float correction[2];
#pragma unroll
    for (int i = 0; i < 2; ++i) {
      tile_max[i] = fmaxf(tile_max[i], __shfl_xor_sync(0xFFFFFFFFu, tile_max[i], 1));
      tile_max[i] = fmaxf(tile_max[i], __shfl_xor_sync(0xFFFFFFFFu, tile_max[i], 2));
      const float m_new = fmaxf(m[i], tile_max[i]);
      correction[i] = exp2f(m[i] - m_new);
      m[i] = m_new;
      l[i] *= correction[i];
    }
#pragma unroll
    for (int d = 0; d < HD / 8; ++d)
#pragma unroll
      for (int e = 0; e < 4; ++e) acc[d][e] *= correction[e / 2];
#pragma unroll
    for (int n = 0; n < kKeyTile / 8; ++n)
#pragma unroll
      for (int e = 0; e < 4; ++e) {
        s[n][e] = exp2f(s[n][e] - m[e / 2]);
        l[e / 2] += s[n][e];
      }
#pragma unroll
    for (int j = 0; j < kKeyTile / 16; ++j) {
      const uint32_t pa[4] = {pack_bf16(s[2 * j][0], s[2 * j][1]), pack_bf16(s[2 * j][2], s[2 * j][3]),
                              pack_bf16(s[2 * j + 1][0], s[2 * j + 1][1]), pack_bf16(s[2 * j + 1][2], s[2 * j + 1][3])};
      const int key = j * 16 + tq * 2;
#pragma unroll
      for (int d = 0; d < HD / 8; ++d) {
        const int col = d * 8 + g;
        mma_bf16(acc[d], pa, two_at(&vs[key][col], &vs[key + 1][col]), two_at(&vs[key + 8][col], &vs[key + 9][col]));
      }
    }
  }
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    l[i] += __shfl_xor_sync(0xFFFFFFFFu, l[i], 1);
    l[i] += __shfl_xor_sync(0xFFFFFFFFu, l[i], 2);
  }
#pragma unroll
  for (int i = 0; i < 2; ++i) {
    const int64_t t = q0 + warp * 16 + g + 8 * i;
    if (t >= tokens) continue;
    bf16* o = out + (t * batch + b) * width + int64_t(h) * dim;
#pragma unroll
    for (int d = 0; d < HD / 8; ++d)
#pragma unroll
      for (int e = 0; e < 2; ++e) {
        const int c = d * 8 + tq * 2 + e;
        if (c < dim) o[c] = to_bf16(acc[d][2 * i + e] / l[i]);
      }
  }
}

template <int HD>
void launch(const SelfAttentionArgs& a, cudaStream_t stream) {
  const int64_t tokens = a.qkv.shape[0] / a.batch;
  const int dim = static_cast<int>(a.qkv.shape[1] / 3 / a.heads);
  const dim3 grid(static_cast<unsigned>((tokens + kQueryTile - 1) / kQueryTile), static_cast<unsigned>(a.heads),
                  static_cast<unsigned>(a.batch));
  const bool vec = dim == HD && reinterpret_cast<uintptr_t>(a.qkv.data) % 16 == 0;  // D % 8 == 0: rows aligned too
  self_attention_kernel<HD><<<grid, kThreads, 0, stream>>>(a.qkv.as<const bf16>(), a.out.as<bf16>(), tokens, a.batch,
                                                           a.heads, dim, a.scale * kLog2e, vec);
}

}  // namespace

bool self_attention_supports(const void* args) {
  const auto& a = *static_cast<const SelfAttentionArgs*>(args);
  return a.qkv.shape[1] / 3 / a.heads <= kMaxHead;
}

void self_attention_cuda(const Queue& q, const void* args) {
  const auto& a = *static_cast<const SelfAttentionArgs*>(args);
  const int64_t dim = a.qkv.shape[1] / 3 / a.heads;
  const cudaStream_t stream = stream_of(q);
  if (dim <= 16)
    launch<16>(a, stream);
  else if (dim <= 32)
    launch<32>(a, stream);
  else if (dim <= 48)
    launch<48>(a, stream);
  else
    launch<64>(a, stream);
  check_launch("self_attention");
}

}  // namespace music3::ops
