// gqa_attention on CUDA. pos is read on the device, so a captured decode step replays
// at every position. Kernels:
//  - store (prefill): one block per qkv row r = t*B + b, copies its k and v heads into the caches
//    at row pos + t of batch b;
//  - decode (B rows, one token): flash decoding. One block per (b, K/V head, chunk of kGqaChunk positions); before
//    pdl_wait() it stages the chunk's cached k and v rows in shared memory (cp.async: their reads overlap the kernel
//    before), after it the chunk holding pos stores the row's k and v there (the store, fused) and stages them too;
//    a warp per position computes the G = nH / nKV query heads'
//    scores s = scale * q.k (f32 fmas over d, warp butterfly); per head the chunk's max m,
//    e_p = expf(s_p - m), l = sum e_p in increasing p, and acc_d = sum bf16(e_p) * v_p[d]
//    in increasing p; (m, l, acc) go to scratch. Chunks past the prefix exit at once;
//    combine: one block per (b, head) over the prefix's chunks c: M = max m_c, w_c =
//    expf(m_c - M), L = sum w_c l_c, out_d = bf16( (sum w_c acc_c,d) * (1 / L) ), c increasing;
//  - prefill (T > 1 tokens): one block per (row, query head) over its causal prefix, one
//    chunk: scores in shared memory (a warp per position), the max and l = sum e_p by the
//    block's fixed reduction trees (block_reduce.cuh), bf16(e_p), one thread per d for P.V
//    in increasing p.
// At the LM's geometry (D 128, G 4) the provider cuda.gqa_attention.fixed (gqa_attention_fixed.cu) runs the decode
// on compile-time-geometry kernels with the same arithmetic; this one takes the other calls (and those too with
// MUSIC3_DISABLE_PROVIDERS=cuda.gqa_attention.fixed).
// Rows whose position is past the cache are skipped (lm_ops.h). The two decode kernels launch under PDL
// (pdl.cuh): each block waits for the earlier kernels before its first read (the position included; what earlier
// kernels wrote is never read through the non-coherent path, so those parameters are not __restrict__), then
// lets the next kernel start (the combine; after it the o-projection's GEMV, which prefetches its weights).
#include <stdexcept>
#include <string>

#include "engine/core/bf16.h"
#include "engine/ops/cuda/async_copy.cuh"
#include "engine/ops/cuda/block_reduce.cuh"
#include "engine/ops/cuda/cuda_providers.h"
#include "engine/ops/cuda/gqa_chunk_softmax.cuh"
#include "engine/ops/cuda/launch.h"
#include "engine/ops/cuda/pdl.cuh"
#include "engine/ops/lm_ops.h"

namespace music3::ops {
namespace {

constexpr int kThreads = 256;
constexpr int kWarps = kThreads / 32;
constexpr int kMaxGroup = 8;   // query heads per K/V head the decode kernel holds in registers
constexpr int kMaxDim = 256;   // head width the decode kernel holds in shared memory

struct Geometry {
  int batch, heads, kv_heads, group;
  int64_t dim, tmax, row_width, q_width, kv_width, chunks;
};

__global__ void __launch_bounds__(kThreads) store_kernel(const bf16* __restrict__ qkv, bf16* __restrict__ k_cache,
                                                         bf16* __restrict__ v_cache, const int32_t* __restrict__ pos,
                                                         Geometry g) {
  const int64_t r = blockIdx.x, b = r % g.batch, p = int64_t{pos[0]} + r / g.batch;
  if (p < 0 || p >= g.tmax) return;
  const bf16* src = qkv + r * g.row_width + g.q_width;
  const int64_t at = (b * g.tmax + p) * g.kv_width;
  for (int64_t i = threadIdx.x; i < g.kv_width; i += kThreads) {
    k_cache[at + i] = src[i];
    v_cache[at + i] = src[g.kv_width + i];
  }
}

// The chunk's k rows, then its v rows, staged in dynamic shared memory as bf16 [2][kGqaChunk][dim].
__device__ __forceinline__ bf16* staged_row(bf16* staged, int which, int p, int64_t dim) {
  return staged + (int64_t{which} * kGqaChunk + p) * dim;
}

__global__ void __launch_bounds__(kThreads)
    decode_chunk_kernel(const bf16* qkv, bf16* k_cache, bf16* v_cache, const int32_t* pos,
                        float* __restrict__ scratch, Geometry g, float scale, bool vector_staging) {
  extern __shared__ uint4 staged_kv[];  // bf16 [2][kGqaChunk][dim], 16-byte aligned
  bf16* staged = reinterpret_cast<bf16*>(staged_kv);
  __shared__ float qs[kMaxGroup][kMaxDim];
  __shared__ float score[kMaxGroup][kGqaChunk];
  const int b = static_cast<int>(blockIdx.x) / g.kv_heads, kvh = static_cast<int>(blockIdx.x) % g.kv_heads;
  // Before pdl_wait(), the position and the chunk's cached rows below the newest: the kernel directly before this one
  // (q/k norm + RoPE) writes neither, and their writers (the position's upload, earlier steps' attention) completed
  // before it could pass its own pdl_wait() (pdl.cuh). So the rows' DRAM latency hides behind that kernel's tail.
  const int64_t length = int64_t{__ldcg(pos)} + 1, first = int64_t{blockIdx.y} * kGqaChunk;
  if (length > g.tmax || first >= length) {
    pdl_wait();
    pdl_trigger();
    return;
  }
  const int n = static_cast<int>(length - first < kGqaChunk ? length - first : kGqaChunk);
  const bool holds_newest = first + kGqaChunk >= length;
  const int cached = holds_newest ? n - 1 : n;  // the newest row comes from qkv, after pdl_wait()
  const int64_t kv_at = (b * g.tmax + first) * g.kv_width + kvh * g.dim;
  if (vector_staging) {  // dim % 8 == 0 and 16-byte aligned caches: one cp.async per 8 values
    const int64_t row_chunks = g.dim / 8, per_cache = cached * row_chunks;
    for (int64_t i = threadIdx.x; i < 2 * per_cache; i += kThreads) {
      const int which = static_cast<int>(i / per_cache), p = static_cast<int>(i % per_cache / row_chunks);
      const int64_t c = i % row_chunks;
      const bf16* src = (which ? v_cache : k_cache) + kv_at + p * g.kv_width + c * 8;
      copy_async16(shared_address(staged_row(staged, which, p, g.dim) + c * 8), src);
    }
    commit_group();
  } else {
    for (int64_t i = threadIdx.x; i < 2 * cached * g.dim; i += kThreads) {
      const int which = static_cast<int>(i / (cached * g.dim)), p = static_cast<int>(i % (cached * g.dim) / g.dim);
      const int64_t d = i % g.dim;
      const bf16* src = (which ? v_cache : k_cache) + kv_at + p * g.kv_width + d;
      staged_row(staged, which, p, g.dim)[d] = bf16{__ldcg(reinterpret_cast<const unsigned short*>(src))};
    }
  }
  pdl_wait();
  pdl_trigger();
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  // The chunk holding the new position stores this (b, K/V head)'s k and v there (the store kernel's copy, fused: no
  // other block reads that position) and into its staged rows; the barrier below publishes the stage to the block.
  if (holds_newest) {
    const bf16* src = qkv + b * g.row_width + g.q_width + kvh * g.dim;
    const int64_t at = (b * g.tmax + length - 1) * g.kv_width + kvh * g.dim;
    for (int64_t d = threadIdx.x; d < g.dim; d += kThreads) {
      k_cache[at + d] = src[d];
      v_cache[at + d] = src[g.kv_width + d];
      staged_row(staged, 0, cached, g.dim)[d] = k_cache[at + d];
      staged_row(staged, 1, cached, g.dim)[d] = v_cache[at + d];
    }
  }
  for (int64_t i = threadIdx.x; i < g.group * g.dim; i += kThreads)
    qs[i / g.dim][i % g.dim] = to_f32(qkv[b * g.row_width + (kvh * g.group + i / g.dim) * g.dim + i % g.dim]);
  if (vector_staging) wait_groups<0>();
  __syncthreads();
  for (int p = warp; p < n; p += kWarps) {
    float s[kMaxGroup] = {};
    const bf16* kp = staged_row(staged, 0, p, g.dim);
    for (int64_t d = lane; d < g.dim; d += 32) {
      const float kv = to_f32(kp[d]);
#pragma unroll
      for (int h = 0; h < kMaxGroup; ++h)
        if (h < g.group) s[h] = __fmaf_rn(qs[h][d], kv, s[h]);
    }
#pragma unroll
    for (int h = 0; h < kMaxGroup; ++h) {
      if (h >= g.group) break;
      float v = s[h];
      for (int o = 16; o >= 1; o /= 2) v += __shfl_xor_sync(0xFFFFFFFFu, v, o);
      if (lane == 0) score[h][p] = v * scale;
    }
  }
  __syncthreads();
  // Per head h (warp h < G): the chunk's max over its n <= 32 scores (a warp max: exact in any order), e_p =
  // expf(s_p - m) on lane p, then l = e_0 + e_1 + ... in increasing p by lane 0. The scores become bf16(e_p).
  __shared__ float chunk_max[kMaxGroup], chunk_sum[kMaxGroup], expo[kMaxGroup][kGqaChunk];
  static_assert(kMaxGroup <= kWarps && kGqaChunk == 32, "a warp per head, a lane per position");
  if (warp < g.group) gqa_chunk_softmax(score[warp], expo[warp], chunk_max[warp], chunk_sum[warp], lane, n);
  __syncthreads();
  // acc_d = sum bf16(e_p) v_p[d] in increasing p, over the staged v rows.
  for (int64_t i = threadIdx.x; i < g.group * g.dim; i += kThreads) {
    const int h = static_cast<int>(i / g.dim);
    const int64_t d = i % g.dim;
    float acc = 0.0f;
#pragma unroll
    for (int p = 0; p < kGqaChunk; ++p)
      if (p < n) acc = __fmaf_rn(score[h][p], to_f32(staged_row(staged, 1, p, g.dim)[d]), acc);
    float* rec = scratch + ((int64_t{b} * g.heads + kvh * g.group + h) * g.chunks + blockIdx.y) * (g.dim + 2);
    rec[2 + d] = acc;
    if (d == 0) rec[0] = chunk_max[h], rec[1] = chunk_sum[h];
  }
}

// Dynamic shared memory: weight[c] = expf(m_c - M) and sum[c] = l_c for the used chunks, each computed once
// by one thread (the values equal those of a per-thread recomputation), so the serial sums below read shared
// memory: L = sum weight[c] sum[c] (a multiply, then an add) and acc_d = sum weight[c] acc_c[d] (fused), both
// in increasing c. M is a max, exact in any order.
__global__ void __launch_bounds__(kThreads) decode_combine_kernel(const float* scratch, const int32_t* pos,
                                                                  bf16* __restrict__ out, Geometry g) {
  extern __shared__ float staged[];  // weight [chunks], then sum [chunks]
  __shared__ float reduce_scratch[32];
  __shared__ float total;
  pdl_wait();
  pdl_trigger();
  const int64_t bh = blockIdx.x, length = int64_t{pos[0]} + 1;
  if (length > g.tmax) return;
  const int64_t used = (length + kGqaChunk - 1) / kGqaChunk;
  const float* recs = scratch + bh * g.chunks * (g.dim + 2);
  float* weight = staged;
  float* sum = staged + g.chunks;
  float m = -INFINITY;
  for (int64_t c = threadIdx.x; c < used; c += kThreads) m = fmaxf(m, recs[c * (g.dim + 2)]);
  m = block_reduce(m, -INFINITY, reduce_scratch, MaxOp{});  // its barriers order the loads above
  for (int64_t c = threadIdx.x; c < used; c += kThreads) {
    weight[c] = expf(recs[c * (g.dim + 2)] - m);
    sum[c] = recs[c * (g.dim + 2) + 1];
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    float l = 0.0f;
    for (int64_t c = 0; c < used; ++c) l = __fadd_rn(l, __fmul_rn(weight[c], sum[c]));
    total = l;
  }
  __syncthreads();
  const float inv = 1.0f / total;
  for (int64_t d = threadIdx.x; d < g.dim; d += kThreads) {
    float acc = 0.0f;
#pragma unroll 8
    for (int64_t c = 0; c < used; ++c) acc = __fmaf_rn(weight[c], recs[c * (g.dim + 2) + 2 + d], acc);
    out[bh * g.dim + d] = to_bf16(__fmul_rn(acc, inv));  // row b's heads are contiguous: out[b, h*D + d]
  }
}

__global__ void __launch_bounds__(kThreads)
    prefill_kernel(const bf16* __restrict__ qkv, const bf16* __restrict__ k_cache, const bf16* __restrict__ v_cache,
                   const int32_t* __restrict__ pos, bf16* __restrict__ out, Geometry g, float scale) {
  extern __shared__ float prob[];  // [Tmax]
  __shared__ float scratch[32];
  const int64_t r = blockIdx.x / g.heads, h = blockIdx.x % g.heads, b = r % g.batch;
  const int64_t length = int64_t{pos[0]} + r / g.batch + 1;
  if (length > g.tmax) return;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const bf16* q = qkv + r * g.row_width + h * g.dim;
  const int64_t kv_off = (h / g.group) * g.dim;
  const bf16* krows = k_cache + b * g.tmax * g.kv_width + kv_off;
  const bf16* vrows = v_cache + b * g.tmax * g.kv_width + kv_off;
  for (int64_t p = warp; p < length; p += kWarps) {
    float s = 0.0f;
    for (int64_t d = lane; d < g.dim; d += 32) s = __fmaf_rn(to_f32(q[d]), to_f32(krows[p * g.kv_width + d]), s);
    for (int o = 16; o >= 1; o /= 2) s += __shfl_xor_sync(0xFFFFFFFFu, s, o);
    if (lane == 0) prob[p] = s * scale;
  }
  __syncthreads();
  float m = -INFINITY;
  for (int64_t p = threadIdx.x; p < length; p += kThreads) m = fmaxf(m, prob[p]);
  m = block_reduce(m, -INFINITY, scratch, MaxOp{});
  float l = 0.0f;
  for (int64_t p = threadIdx.x; p < length; p += kThreads) {
    const float e = expf(prob[p] - m);
    l += e;
    prob[p] = round_bf16(e);
  }
  l = block_reduce(l, 0.0f, scratch, SumOp{});  // its barriers also publish prob[]
  const float inv_sum = 1.0f / l;
  for (int64_t d = threadIdx.x; d < g.dim; d += kThreads) {
    float acc = 0.0f;
    for (int64_t p = 0; p < length; ++p) acc = __fmaf_rn(prob[p], to_f32(vrows[p * g.kv_width + d]), acc);
    out[r * g.q_width + h * g.dim + d] = to_bf16(__fmul_rn(acc, inv_sum));
  }
}

}  // namespace

void gqa_attention_cuda(const Queue& q, const void* args) {
  const auto& a = *static_cast<const GqaAttentionArgs*>(args);
  Geometry g{};
  g.batch = static_cast<int>(a.k_cache.shape[0]);
  g.heads = a.heads;
  g.kv_heads = a.kv_heads;
  g.group = a.heads / a.kv_heads;
  g.tmax = a.k_cache.shape[1];
  g.kv_width = a.k_cache.shape[2];
  g.dim = g.kv_width / a.kv_heads;
  g.row_width = a.qkv.shape[1];
  g.q_width = a.heads * g.dim;
  g.chunks = gqa_chunks(g.tmax);
  const int64_t rows = a.qkv.shape[0];
  const cudaStream_t s = stream_of(q);
  const int32_t* pos = a.pos.as<const int32_t>();
  if (rows == g.batch && g.group <= kMaxGroup && g.dim <= kMaxDim) {
    const size_t staged = 2 * static_cast<size_t>(g.chunks) * sizeof(float);
    if (staged > 48 * 1024) throw std::invalid_argument("gqa_attention: " + std::to_string(g.chunks) +
                                                        " decode chunks exceed the combine kernel's shared memory");
    const bool vector_staging = g.dim % 8 == 0 && aligned16(a.k_cache.data) && aligned16(a.v_cache.data);
    launch_pdl("gqa_attention (decode chunks)", decode_chunk_kernel,
               dim3(static_cast<unsigned>(g.batch * g.kv_heads), static_cast<unsigned>(g.chunks)), dim3(kThreads),
               2 * kGqaChunk * static_cast<size_t>(g.dim) * sizeof(bf16), s, a.qkv.as<const bf16>(),
               a.k_cache.as<bf16>(), a.v_cache.as<bf16>(), pos, a.scratch.as<float>(), g, a.scale, vector_staging);
    launch_pdl("gqa_attention (decode combine)", decode_combine_kernel, dim3(static_cast<unsigned>(g.batch * g.heads)),
               dim3(kThreads), staged, s, a.scratch.as<const float>(), pos, a.out.as<bf16>(), g);
    return;
  }
  store_kernel<<<static_cast<unsigned>(rows), kThreads, 0, s>>>(a.qkv.as<const bf16>(), a.k_cache.as<bf16>(),
                                                                a.v_cache.as<bf16>(), pos, g);
  check_launch("gqa_attention (store)");
  const size_t shared = static_cast<size_t>(g.tmax) * sizeof(float);
  if (shared > 48 * 1024) {
    int device = 0, optin = 0;
    check_cuda(cudaGetDevice(&device), "gqa_attention (cuda): cudaGetDevice");
    check_cuda(cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device),
               "gqa_attention (cuda): shared memory limit");
    if (shared > static_cast<size_t>(optin))
      throw std::invalid_argument("gqa_attention (cuda): a cache of " + std::to_string(g.tmax) +
                                  " positions needs more shared scores than a block has");
    check_cuda(cudaFuncSetAttribute(prefill_kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                    static_cast<int>(shared)),
               "gqa_attention (cuda): shared memory opt-in");
  }
  prefill_kernel<<<static_cast<unsigned>(rows * g.heads), kThreads, shared, s>>>(
      a.qkv.as<const bf16>(), a.k_cache.as<const bf16>(), a.v_cache.as<const bf16>(), pos, a.out.as<bf16>(), g,
      a.scale);
  check_launch("gqa_attention (prefill)");
}

}  // namespace music3::ops
