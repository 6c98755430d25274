// gqa_attention's decode step on CUDA at the LM's geometry (provider cuda.gqa_attention.fixed): kernels with a
// compile-time head width D = 128 and group G = 4, the same two phases and the same arithmetic as
// gqa_attention.cu's runtime-geometry kernels, so the same bits
// (its header states the order of every sum), with what made those kernels slow taken out of them:
//   - every index in 32 bits, the divisions by D and by the chunk constant (the runtime kernels ran a 64-bit
//     software division or remainder per staged copy and per output: at K/V 1800 the chunk kernel issued so many
//     instructions that it ran at 0.59 TB/s, 25 us per layer alone under Nsight Compute);
//   - the query heads held in registers by every warp (no shared copy, no barrier for it);
//   - the G dot products of a position reduced by one transposed butterfly (G - 1 + log2(32 / G) shuffles
//     instead of 5 G), whose pairing tree is the plain butterfly's at distances 16, 8, 4, 2, 1, so each sum's bits;
//   - the newest row's k and v copied in 16-byte pieces;
//   - in the combine, one block of D threads per (row, head), the total L summed by thread 0 after its own output
//     sum instead of before every thread's (one barrier less on the critical path).
// It takes decode calls (one token per row) with dim == D and heads / kv_heads == G whose caches and qkv are
// 16-byte aligned, qkv rows a multiple of 8 values, and every cache and scratch offset below 2^31; the rest go to
// cuda.gqa_attention (and all of them with MUSIC3_DISABLE_PROVIDERS=cuda.gqa_attention.fixed).
#include <cstdint>

#include "engine/core/bf16.h"
#include "engine/ops/cuda/async_copy.cuh"
#include "engine/ops/cuda/block_reduce.cuh"
#include "engine/ops/cuda/cuda_providers.h"
#include "engine/ops/cuda/gqa_chunk_softmax.cuh"
#include "engine/ops/cuda/launch.h"
#include "engine/ops/cuda/pdl.cuh"
#include "engine/ops/cuda/warp_sum_transposed.cuh"
#include "engine/ops/lm_ops.h"

namespace music3::ops {
namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;

struct Geometry {
  int batch, heads, kv_heads, tmax, row_width, q_width, kv_width, chunks;
};

template <int D, int G>
__global__ void __launch_bounds__(kThreads)
    decode_chunk_kernel(const bf16* qkv, bf16* k_cache, bf16* v_cache, const int32_t* pos,
                        float* __restrict__ scratch, Geometry g, float scale) {
  static_assert(D % 32 == 0 && (G & (G - 1)) == 0 && G <= kWarps && G * D % kThreads == 0 && kGqaChunk == 32,
                "a warp per head in the softmax, a lane per position, whole heads per thread in P.V");
  constexpr int kPieces = D / 8;  // 16-byte pieces of a head row
  __shared__ __align__(16) bf16 staged[2][kGqaChunk][D];  // the chunk's k rows, then its v rows
  __shared__ float score[G][kGqaChunk], expo[G][kGqaChunk], chunk_max[G], chunk_sum[G];
  const int b = static_cast<int>(blockIdx.x) / g.kv_heads, kvh = static_cast<int>(blockIdx.x) % g.kv_heads;
  // Before pdl_wait(): the position and the cached rows below the newest (gqa_attention.cu says why that is safe).
  const int length = __ldcg(pos) + 1, first = static_cast<int>(blockIdx.y) * kGqaChunk;
  if (length > g.tmax || first >= length) {
    pdl_wait();
    pdl_trigger();
    return;
  }
  const int n = length - first < kGqaChunk ? length - first : kGqaChunk;
  const bool holds_newest = first + kGqaChunk >= length;
  const int cached = holds_newest ? n - 1 : n;
  const int kv_at = (b * g.tmax + first) * g.kv_width + kvh * D;
#pragma unroll
  for (int i = threadIdx.x; i < 2 * kGqaChunk * kPieces; i += kThreads) {
    const int which = i / (kGqaChunk * kPieces), p = i / kPieces % kGqaChunk, c = i % kPieces;
    if (p < cached)
      copy_async16(shared_address(&staged[which][p][c * 8]), (which ? v_cache : k_cache) + kv_at + p * g.kv_width + c * 8);
  }
  commit_group();
  pdl_wait();
  pdl_trigger();
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  if (holds_newest && threadIdx.x < 2 * kPieces) {  // the store, fused: no other block reads that position
    const int which = threadIdx.x / kPieces, c = threadIdx.x % kPieces;
    const uint4 row = load_produced16(qkv + b * g.row_width + g.q_width + which * g.kv_width + kvh * D + c * 8);
    *reinterpret_cast<uint4*>((which ? v_cache : k_cache) + (b * g.tmax + length - 1) * g.kv_width + kvh * D + c * 8) =
        row;
    *reinterpret_cast<uint4*>(&staged[which][cached][c * 8]) = row;
  }
  float q[G][D / 32];  // lane's d = lane + 32 i of each query head of the group
  const bf16* q_row = qkv + b * g.row_width + kvh * G * D;
#pragma unroll
  for (int h = 0; h < G; ++h)
#pragma unroll
    for (int i = 0; i < D / 32; ++i) q[h][i] = to_f32(q_row[h * D + lane + 32 * i]);
  wait_groups<0>();
  __syncthreads();
  for (int p = warp; p < n; p += kWarps) {
    float s[G];
#pragma unroll
    for (int h = 0; h < G; ++h) s[h] = 0.0f;
#pragma unroll
    for (int i = 0; i < D / 32; ++i) {
      const float kv = to_f32(staged[0][p][lane + 32 * i]);
#pragma unroll
      for (int h = 0; h < G; ++h) s[h] = __fmaf_rn(q[h][i], kv, s[h]);
    }
    const int h = warp_sum_transposed<G, true>(s, lane);
    if ((lane & (32 / G - 1)) == 0) score[h][p] = s[0] * scale;
  }
  __syncthreads();
  if (warp < G) gqa_chunk_softmax(score[warp], expo[warp], chunk_max[warp], chunk_sum[warp], lane, n);  // head warp
  __syncthreads();
  constexpr int kHeadStride = kThreads / D, kHeadsPerThread = G * D / kThreads;
  const int d = threadIdx.x % D, h0 = threadIdx.x / D;  // heads h0, h0 + kHeadStride, ...
  float acc[kHeadsPerThread];
#pragma unroll
  for (int j = 0; j < kHeadsPerThread; ++j) acc[j] = 0.0f;
#pragma unroll
  for (int p = 0; p < kGqaChunk; ++p) {
    if (p >= n) break;
    const float v = to_f32(staged[1][p][d]);
#pragma unroll
    for (int j = 0; j < kHeadsPerThread; ++j) acc[j] = __fmaf_rn(score[h0 + j * kHeadStride][p], v, acc[j]);
  }
#pragma unroll
  for (int j = 0; j < kHeadsPerThread; ++j) {
    const int h = h0 + j * kHeadStride;
    float* rec = scratch + ((b * g.heads + kvh * G + h) * g.chunks + static_cast<int>(blockIdx.y)) * (D + 2);
    rec[2 + d] = acc[j];
    if (d == 0) rec[0] = chunk_max[h], rec[1] = chunk_sum[h];
  }
}

// One block of D threads per (row b, query head): M = max m_c, w_c = expf(m_c - M), acc_d = sum w_c acc_c,d
// (fused, increasing c), L = sum w_c l_c (a multiply, then an add, increasing c) by thread 0,
// out_d = bf16(acc_d * (1 / L)). Dynamic shared memory: w [chunks], then l [chunks].
template <int D>
__global__ void __launch_bounds__(D) decode_combine_kernel(const float* scratch, const int32_t* pos,
                                                           bf16* __restrict__ out, Geometry g) {
  extern __shared__ float staged[];
  __shared__ float reduce_scratch[32];
  __shared__ float total;
  pdl_wait();
  pdl_trigger();
  const int bh = static_cast<int>(blockIdx.x), length = pos[0] + 1;
  if (length > g.tmax) return;
  const int used = (length + kGqaChunk - 1) / kGqaChunk;
  const float* recs = scratch + bh * g.chunks * (D + 2);
  float* weight = staged;
  float* sum = staged + g.chunks;
  float m = -INFINITY;
  for (int c = threadIdx.x; c < used; c += D) m = fmaxf(m, recs[c * (D + 2)]);
  m = block_reduce(m, -INFINITY, reduce_scratch, MaxOp{});  // its barriers order the loads above
  for (int c = threadIdx.x; c < used; c += D) {
    weight[c] = expf(recs[c * (D + 2)] - m);
    sum[c] = recs[c * (D + 2) + 1];
  }
  __syncthreads();
  const int d = threadIdx.x;
  float acc = 0.0f;
#pragma unroll 8
  for (int c = 0; c < used; ++c) acc = __fmaf_rn(weight[c], recs[c * (D + 2) + 2 + d], acc);
  if (d == 0) {
    float l = 0.0f;
    for (int c = 0; c < used; ++c) l = __fadd_rn(l, __fmul_rn(weight[c], sum[c]));
    total = l;
  }
  __syncthreads();
  out[bh * D + d] = to_bf16(__fmul_rn(acc, 1.0f / total));  // row b's heads are contiguous: out[b, h*D + d]
}

constexpr int kD = 128, kG = 4;

Geometry geometry_of(const GqaAttentionArgs& a) {
  return Geometry{static_cast<int>(a.k_cache.shape[0]), a.heads, a.kv_heads, static_cast<int>(a.k_cache.shape[1]),
                  static_cast<int>(a.qkv.shape[1]), a.heads * kD, static_cast<int>(a.k_cache.shape[2]),
                  static_cast<int>(gqa_chunks(a.k_cache.shape[1]))};
}

}  // namespace

bool gqa_attention_fixed_supports(const void* args) {
  const auto& a = *static_cast<const GqaAttentionArgs*>(args);
  if (a.kv_heads < 1 || a.heads != kG * a.kv_heads || a.k_cache.shape[2] != int64_t{a.kv_heads} * kD) return false;
  const int64_t batch = a.k_cache.shape[0], tmax = a.k_cache.shape[1], kv_width = a.k_cache.shape[2];
  return a.qkv.shape[0] == batch && a.qkv.shape[1] % 8 == 0 && aligned16(a.qkv.data) && aligned16(a.k_cache.data) &&
         aligned16(a.v_cache.data) && batch * tmax * kv_width < INT32_MAX &&
         batch * a.heads * gqa_chunks(tmax) * (kD + 2) < INT32_MAX;
}

void gqa_attention_fixed_cuda(const Queue& q, const void* args) {
  const auto& a = *static_cast<const GqaAttentionArgs*>(args);
  const Geometry g = geometry_of(a);
  const cudaStream_t s = stream_of(q);
  const int32_t* pos = a.pos.as<const int32_t>();
  launch_pdl("gqa_attention (fixed decode chunks)", decode_chunk_kernel<kD, kG>,
             dim3(static_cast<unsigned>(g.batch * g.kv_heads), static_cast<unsigned>(g.chunks)), dim3(kThreads), 0, s,
             a.qkv.as<const bf16>(), a.k_cache.as<bf16>(), a.v_cache.as<bf16>(), pos, a.scratch.as<float>(), g, a.scale);
  launch_pdl("gqa_attention (fixed decode combine)", decode_combine_kernel<kD>,
             dim3(static_cast<unsigned>(g.batch * g.heads)), dim3(kD), 2 * static_cast<size_t>(g.chunks) * sizeof(float),
             s, a.scratch.as<const float>(), pos, a.out.as<bf16>(), g);
}

}  // namespace music3::ops
