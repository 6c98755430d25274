// kv_append_attention on CUDA: one block per (token t, batch b, head h), launched under
// PDL (pdl.cuh: it waits before any access; qkv, written by the kernel before, is not
// __restrict__). The block copies its head's slice of k and
// v (qkv row t*B + b) into the caches at pos + t, and computes token t's attention with
// attention_decode.cu's arithmetic in attention_decode.cu's order:
//   s_p = scale * (q . k_p)   one warp per position p, f32, warp butterfly sum
//   m = max_p s_p;  e_p = expf(s_p - m);  l = sum_p e_p in increasing p   (f32, one thread)
//   out_d = bf16( (sum_p f32(bf16(e_p)) * v_p[d], increasing p) * (1 / l) )   one thread per d
// over p < pos + t + 1, reading k_p and v_p from the caches for p < pos and from qkv
// (token p - pos, bit-identical to what kv_append writes) for p >= pos, so no block reads
// a cache row another block of this launch writes, and the bits equal kv_append then
// attention_decode for each token in turn. Loads are issued in batches of kBatch before
// their products are added (in the same order), so each batch costs one round trip.
#include <stdexcept>
#include <string>

#include "engine/core/bf16.h"
#include "engine/ops/cuda/cuda_providers.h"
#include "engine/ops/cuda/launch.h"
#include "engine/ops/cuda/pdl.cuh"
#include "engine/ops/ops.h"

namespace music3::ops {
namespace {

constexpr int kThreads = 256;
constexpr int kBatch = 8;  // loads a thread issues before it uses the first of them

__global__ void __launch_bounds__(kThreads)
    kv_append_attention_kernel(const bf16* qkv, bf16* __restrict__ k_cache,
                               bf16* __restrict__ v_cache, bf16* __restrict__ out, int batch, int heads,
                               int64_t dim, int64_t tmax, int pos, float scale) {
  extern __shared__ float prob[];  // [length]
  __shared__ float inv_sum;
  const int heads_per_token = batch * heads;
  const int t = static_cast<int>(blockIdx.x) / heads_per_token;
  const int b = static_cast<int>(blockIdx.x) % heads_per_token / heads, h = static_cast<int>(blockIdx.x) % heads;
  const int64_t width = dim * heads;
  const int length = pos + t + 1;
  // Row p of the keys and values this block attends: the cache below pos, token p - pos's qkv row above.
  auto k_row = [&](int p) {
    return p < pos ? k_cache + (b * tmax + p) * width + h * dim
                   : qkv + (int64_t{p - pos} * batch + b) * 3 * width + width + h * dim;
  };
  auto v_row = [&](int p) {
    return p < pos ? v_cache + (b * tmax + p) * width + h * dim
                   : qkv + (int64_t{p - pos} * batch + b) * 3 * width + 2 * width + h * dim;
  };
  const bf16* q = qkv + (int64_t{t} * batch + b) * 3 * width + h * dim;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  pdl_wait();
  pdl_trigger();

  const int64_t own = (b * tmax + pos + t) * width + h * dim;
  for (int64_t d = threadIdx.x; d < dim; d += kThreads) {
    k_cache[own + d] = k_row(pos + t)[d];
    v_cache[own + d] = v_row(pos + t)[d];
  }
  for (int p = warp; p < length; p += kThreads / 32) {
    const bf16* kp = k_row(p);
    float s = 0.0f;
    for (int64_t d0 = lane; d0 < dim; d0 += 32 * kBatch) {
      bf16 qv[kBatch], kv[kBatch];
#pragma unroll
      for (int u = 0; u < kBatch; ++u)
        if (d0 + 32 * u < dim) qv[u] = q[d0 + 32 * u], kv[u] = kp[d0 + 32 * u];
#pragma unroll
      for (int u = 0; u < kBatch; ++u)
        if (d0 + 32 * u < dim) s = __fmaf_rn(to_f32(qv[u]), to_f32(kv[u]), s);  // exact products, increasing d
    }
    for (int o = 16; o >= 1; o /= 2) s += __shfl_xor_sync(0xFFFFFFFFu, s, o);
    if (lane == 0) prob[p] = s * scale;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    float m = prob[0];
    for (int p = 1; p < length; ++p) m = fmaxf(m, prob[p]);
    float l = 0.0f;
    for (int p = 0; p < length; ++p) {
      const float e = expf(prob[p] - m);
      l += e;
      prob[p] = round_bf16(e);
    }
    inv_sum = 1.0f / l;
  }
  __syncthreads();
  for (int64_t d = threadIdx.x; d < dim; d += kThreads) {
    float acc = 0.0f;
    for (int p0 = 0; p0 < length; p0 += kBatch) {
      bf16 vv[kBatch];
#pragma unroll
      for (int u = 0; u < kBatch; ++u)
        if (p0 + u < length) vv[u] = v_row(p0 + u)[d];
#pragma unroll
      for (int u = 0; u < kBatch; ++u)
        if (p0 + u < length) acc = __fmaf_rn(prob[p0 + u], to_f32(vv[u]), acc);  // exact products, increasing p
    }
    out[(int64_t{t} * batch + b) * width + h * dim + d] = to_bf16(acc * inv_sum);
  }
}

}  // namespace

void kv_append_attention_cuda(const Queue& q, const void* args) {
  const auto& p = *static_cast<const KvAppendAttentionArgs*>(args);
  const int64_t batch = p.k_cache.shape[0], tokens = p.qkv.shape[0] / batch, width = p.out.shape[1];
  const int64_t max_length = p.pos + tokens;
  const size_t shared = static_cast<size_t>(max_length) * sizeof(float);
  if (shared > 48 * 1024)
    throw std::invalid_argument("kv_append_attention (cuda): length " + std::to_string(max_length) +
                                " needs more than 48 KiB of shared scores");
  launch_pdl("kv_append_attention", kv_append_attention_kernel,
             dim3(static_cast<unsigned>(tokens * batch * p.heads)), dim3(kThreads), shared, stream_of(q),
             p.qkv.as<const bf16>(), p.k_cache.as<bf16>(), p.v_cache.as<bf16>(), p.out.as<bf16>(),
             static_cast<int>(batch), p.heads, width / p.heads, p.k_cache.shape[1], p.pos, p.scale);
}

}  // namespace music3::ops
