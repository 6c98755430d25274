// self_attention on CUDA: a flash-style kernel on the tensor cores (mma.sync m16n8k16, bf16 in, f32 accumulate).
// One block per (64-query tile, head, batch), four warps of 16 query rows each. The head is zero-padded in shared
// memory to HD (16, 32, 48 or 64, the next multiple of 16 >= D), which leaves q.k and the written dims unchanged.
// With rotary tables, each Q and K tile is rotated in shared memory once it has landed (rope_pair.cuh: the
// rotation's arithmetic and bits, positions = token indices), before any fragment is read from it.
// Keys go in tiles of 64 (the CPU provider's tile) through two shared-memory stages: tile t + 1's K and V are
// requested (cp.async, 16-byte chunks, when D == HD and the rows are 16-byte aligned; plain stores otherwise)
// before tile t is used; rows past S are zero. Q passes once through stage 1 into registers (mma A fragments);
// the K and V B fragments come by ldmatrix (V's transposed), four 8x8 matrices per instruction. Per tile:
//   s = f32 (q.k) via mma, scaled by scale * log2(e) (keys past S: -inf);
//   per row: the tile max into the running max m (a quad shuffle over the four lanes sharing a row), the f32
//   accumulator and the lane's partial row sum rescaled by exp2(m_old - m); p = exp2(s - m) (= exp(scale q.k -
//   max)); the partial sum adds p unrounded; P is rounded to bf16 and fed to the P.V mma straight from the score
//   registers;
//   at the end the four partial sums of a row are added (quad shuffle) and out = bf16(acc / sum), for dims < D.
// The arithmetic differs from the CPU provider only in summation orders and exp2 vs exp: the band is the contract.
#include <cstdint>

#include "engine/core/bf16.h"
#include "engine/ops/cuda/async_copy.cuh"
#include "engine/ops/cuda/cuda_providers.h"
#include "engine/ops/cuda/launch.h"
#include "engine/ops/cuda/rope_pair.cuh"
#include "engine/ops/transformer_ops.h"

namespace music3::ops {
namespace {

constexpr int kWarps = 4, kThreads = 32 * kWarps;
constexpr int kQueryTile = 16 * kWarps;  // 64 query rows
constexpr int kKeyTile = 64;
constexpr int kMinBlocks = 4;  // resident per SM: registers capped at 128 (704 blocks for the DiT: 1.33 waves)
constexpr int kMaxHead = 64;
constexpr float kLog2e = 1.4426950408889634f;

__device__ __forceinline__ uint32_t pack_bf16(float lo, float hi) {
  return uint32_t(to_bf16(lo).bits) | (uint32_t(to_bf16(hi).bits) << 16);
}
__device__ __forceinline__ uint32_t pair_at(const bf16* p) { return *reinterpret_cast<const uint32_t*>(p); }

// c += a . b for one 16x8x16 tile.
__device__ __forceinline__ void mma_bf16(float (&c)[4], const uint32_t (&a)[4], uint32_t b0, uint32_t b1) {
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 {%0,%1,%2,%3}, {%4,%5,%6,%7}, {%8,%9}, "
      "{%0,%1,%2,%3};\n"
      : "+f"(c[0]), "+f"(c[1]), "+f"(c[2]), "+f"(c[3])
      : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "r"(b0), "r"(b1));
}

// The 16-byte chunk `idx` of a 64-row tile of one head (rows first.., columns col .. col + HD of rows t * B + b)
// into dst by cp.async, zero-filled for rows past `tokens`. Needs D == HD and 16-byte aligned rows and columns.
template <int HD>
__device__ __forceinline__ void copy_chunk(bf16 (*dst)[HD + 8], const bf16* __restrict__ qkv, int64_t row_stride,
                                           int64_t col, int64_t first, int64_t tokens, int batch, int b, int idx) {
  const int r = idx / (HD / 8), c = idx % (HD / 8) * 8;
  const int64_t t = first + r;
  const bool inside = t < tokens;
  copy_async16_zfill(shared_address(&dst[r][c]), qkv + ((inside ? t : 0) * batch + b) * row_stride + col + c, inside);
}

// Rows [first, first + 64) of one head into dst[64][HD + 8], zero past `tokens` and past D: `vec` (D == HD,
// 16-byte aligned rows and columns) by cp.async in the caller's open commit group, else by plain stores.
template <int HD>
__device__ __forceinline__ void load_tile(bf16 (*dst)[HD + 8], const bf16* __restrict__ qkv, int64_t row_stride,
                                          int64_t col, int64_t first, int64_t tokens, int batch, int b, int dim,
                                          bool vec) {
  if (vec) {
    for (int idx = threadIdx.x; idx < kKeyTile * HD / 8; idx += kThreads)
      copy_chunk<HD>(dst, qkv, row_stride, col, first, tokens, batch, b, idx);
    return;
  }
  for (int idx = threadIdx.x; idx < kKeyTile * HD; idx += kThreads) {
    const int r = idx / HD, c = idx % HD;
    const int64_t t = first + r;
    dst[r][c] = (t < tokens && c < dim) ? qkv[(t * batch + b) * row_stride + col + c] : bf16{};
  }
}

// With rotary tables (rot > 0): rope_pair over the first rot dims of the tile's rows below `tokens`, in place, the
// position of row r being first + r.
template <int HD>
__device__ __forceinline__ void rotate_tile(bf16 (*t)[HD + 8], int64_t first, int64_t tokens,
                                            const bf16* __restrict__ cos, const bf16* __restrict__ sin, int rot) {
  const int half = rot / 2;
  for (int idx = threadIdx.x; idx < kKeyTile * half; idx += kThreads) {
    const int r = idx / half, i = idx % half;
    const int64_t p = first + r;
    if (p < tokens) rope_pair(t[r][i], t[r][i + half], cos + p * rot, sin + p * rot, i, half);
  }
}

// Four 8x8 bf16 matrices from shared memory, lane l giving the address of row l % 8 of matrix l / 8; `.trans`
// hands each lane the column-major pair (rows 2 (l % 4), 2 (l % 4) + 1; column l / 4) instead of the row pair.
__device__ __forceinline__ void ldmatrix_x4(uint32_t (&r)[4], const bf16* row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(shared_address(row)));
}
__device__ __forceinline__ void ldmatrix_x4_trans(uint32_t (&r)[4], const bf16* row) {
  asm volatile("ldmatrix.sync.aligned.m8n8.x4.trans.shared.b16 {%0,%1,%2,%3}, [%4];\n"
               : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3])
               : "r"(shared_address(row)));
}

template <int HD>
__global__ void __launch_bounds__(kThreads, kMinBlocks)
    self_attention_kernel(const bf16* __restrict__ qkv, bf16* __restrict__ out, int64_t tokens, int batch,
                          int heads, int dim, float scale_log2, bool vec, const bf16* __restrict__ cos,
                          const bf16* __restrict__ sin, int rot) {
  // Two stages of K and V; the Q tile passes through stage 1's K before the loop starts.
  __shared__ __align__(16) bf16 ks[2][kKeyTile][HD + 8];
  __shared__ __align__(16) bf16 vs[2][kKeyTile][HD + 8];
  const int b = blockIdx.z, h = blockIdx.y;
  const int64_t q0 = int64_t(blockIdx.x) * kQueryTile;
  const int64_t width = int64_t(heads) * dim, row_stride = 3 * width;
  const int64_t q_col = int64_t(h) * dim, k_col = width + q_col, v_col = 2 * width + q_col;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32, g = lane / 4, tq = lane % 4;
  const int mi = lane / 8, mr = lane % 8;  // the ldmatrix matrix and row this lane addresses

  load_tile<HD>(ks[1], qkv, row_stride, q_col, q0, tokens, batch, b, dim, vec);
  load_tile<HD>(ks[0], qkv, row_stride, k_col, 0, tokens, batch, b, dim, vec);
  load_tile<HD>(vs[0], qkv, row_stride, v_col, 0, tokens, batch, b, dim, vec);
  commit_group();
  wait_groups<0>();
  __syncthreads();
  if (rot > 0) {
    rotate_tile<HD>(ks[1], q0, tokens, cos, sin, rot);
    __syncthreads();
  }
  uint32_t qa[HD / 16][4];
  const int qr = warp * 16 + g;
#pragma unroll
  for (int kk = 0; kk < HD / 16; ++kk) {
    qa[kk][0] = pair_at(&ks[1][qr][kk * 16 + tq * 2]);
    qa[kk][1] = pair_at(&ks[1][qr + 8][kk * 16 + tq * 2]);
    qa[kk][2] = pair_at(&ks[1][qr][kk * 16 + tq * 2 + 8]);
    qa[kk][3] = pair_at(&ks[1][qr + 8][kk * 16 + tq * 2 + 8]);
  }
  __syncthreads();  // Q is in registers: stage 1 is free
  float acc[HD / 8][4] = {};
  float m[2] = {-INFINITY, -INFINITY}, l[2] = {0.0f, 0.0f};  // rows g and g + 8 of the warp

  for (int64_t k0 = 0, stage = 0; k0 < tokens; k0 += kKeyTile, stage ^= 1) {
    if (k0 + kKeyTile < tokens) {  // the next tile into the other stage while this one is used
      load_tile<HD>(ks[stage ^ 1], qkv, row_stride, k_col, k0 + kKeyTile, tokens, batch, b, dim, vec);
      load_tile<HD>(vs[stage ^ 1], qkv, row_stride, v_col, k0 + kKeyTile, tokens, batch, b, dim, vec);
    }
    commit_group();
    wait_groups<1>();  // every group but the one just opened: this tile
    __syncthreads();
    if (rot > 0) {
      rotate_tile<HD>(ks[stage], k0, tokens, cos, sin, rot);
      __syncthreads();
    }
    const bf16(*kt)[HD + 8] = ks[stage];
    const bf16(*vt)[HD + 8] = vs[stage];
    float s[kKeyTile / 8][4];
#pragma unroll
    for (int n = 0; n < kKeyTile / 8; ++n) s[n][0] = s[n][1] = s[n][2] = s[n][3] = 0.0f;
#pragma unroll
    for (int n = 0; n < kKeyTile / 8; n += 2)
#pragma unroll
      for (int kk = 0; kk < HD / 16; ++kk) {
        uint32_t kb[4];  // B fragments of keys n * 8.. and (n + 1) * 8.., dims kk * 16..: {lo, hi} each
        ldmatrix_x4(kb, &kt[(n + mi / 2) * 8 + mr][kk * 16 + (mi % 2) * 8]);
        mma_bf16(s[n], qa[kk], kb[0], kb[1]);
        mma_bf16(s[n + 1], qa[kk], kb[2], kb[3]);
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
#pragma unroll
      for (int d = 0; d < HD / 8; d += 2) {
        uint32_t vb[4];  // B fragments of dims d * 8.. and (d + 1) * 8.., keys j * 16..: {lo 8 keys, hi 8 keys} each
        ldmatrix_x4_trans(vb, &vt[j * 16 + (mi % 2) * 8 + mr][(d + mi / 2) * 8]);
        mma_bf16(acc[d], pa, vb[0], vb[1]);
        mma_bf16(acc[d + 1], pa, vb[2], vb[3]);
      }
    }
    __syncthreads();  // this stage is read: the next iteration may refill it
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
  const bool vec = dim == HD && aligned16(a.qkv.data);  // D % 8 == 0: rows aligned too
  self_attention_kernel<HD><<<grid, kThreads, 0, stream>>>(a.qkv.as<const bf16>(), a.out.as<bf16>(), tokens, a.batch,
                                                           a.heads, dim, a.scale * kLog2e, vec, a.cos.as<const bf16>(),
                                                           a.sin.as<const bf16>(), a.cos.data ? int(a.cos.shape[1]) : 0);
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
