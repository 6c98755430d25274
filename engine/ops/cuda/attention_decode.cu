// attention_decode on CUDA: one block per (batch, head), in the order a flash kernel uses:
//   s_t = scale * (q . k_t)   one warp per position t, f32, warp butterfly sum
//   m = max_t s_t;  e_t = expf(s_t - m);  l = sum_t e_t in increasing t   (f32, one thread)
//   out_d = bf16( (sum_t f32(bf16(e_t)) * v_t[d], increasing t) * (1 / l) )   one thread per d
// The scores live in dynamic shared memory (length floats), so any head width and
// cache length work; the model uses D = 256 and length <= 16.
#include <stdexcept>
#include <string>

#include "engine/core/bf16.h"
#include "engine/ops/cuda/cuda_providers.h"
#include "engine/ops/cuda/launch.h"
#include "engine/ops/ops.h"

namespace music3::ops {
namespace {

constexpr int kThreads = 256;

__global__ void __launch_bounds__(kThreads)
    attention_decode_kernel(const bf16* __restrict__ query, const bf16* __restrict__ k_cache,
                            const bf16* __restrict__ v_cache, bf16* __restrict__ out, int heads, int64_t dim,
                            int64_t tmax, int length, float scale) {
  extern __shared__ float prob[];  // [length]
  __shared__ float inv_sum;
  const int64_t b = blockIdx.x / heads, h = blockIdx.x % heads, width = dim * heads;
  const bf16* q = query + b * width + h * dim;
  const bf16* k = k_cache + b * tmax * width + h * dim;
  const bf16* v = v_cache + b * tmax * width + h * dim;
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;

  for (int t = warp; t < length; t += kThreads / 32) {
    const bf16* kt = k + t * width;
    float s = 0.0f;
    for (int64_t d = lane; d < dim; d += 32) s = __fmaf_rn(to_f32(q[d]), to_f32(kt[d]), s);  // exact products
    for (int o = 16; o >= 1; o /= 2) s += __shfl_xor_sync(0xFFFFFFFFu, s, o);
    if (lane == 0) prob[t] = s * scale;
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    float m = prob[0];
    for (int t = 1; t < length; ++t) m = fmaxf(m, prob[t]);
    float l = 0.0f;
    for (int t = 0; t < length; ++t) {
      const float e = expf(prob[t] - m);
      l += e;
      prob[t] = round_bf16(e);
    }
    inv_sum = 1.0f / l;
  }
  __syncthreads();
  for (int64_t d = threadIdx.x; d < dim; d += kThreads) {
    float acc = 0.0f;
    for (int t = 0; t < length; ++t) acc = __fmaf_rn(prob[t], to_f32(v[t * width + d]), acc);  // exact products
    out[b * width + h * dim + d] = to_bf16(acc * inv_sum);
  }
}

}  // namespace

void attention_decode_cuda(const Queue& q, const void* args) {
  const auto& p = *static_cast<const AttentionDecodeArgs*>(args);
  const int64_t batch = p.q.shape[0], dim = p.q.shape[1] / p.heads;
  const size_t shared = static_cast<size_t>(p.length) * sizeof(float);
  if (shared > 48 * 1024)
    throw std::invalid_argument("attention_decode (cuda): length " + std::to_string(p.length) +
                                " needs more than 48 KiB of shared scores");
  attention_decode_kernel<<<static_cast<unsigned>(batch * p.heads), kThreads, shared, stream_of(q)>>>(
      p.q.as<const bf16>(), p.k_cache.as<const bf16>(), p.v_cache.as<const bf16>(), p.out.as<bf16>(), p.heads, dim,
      p.k_cache.shape[1], p.length, p.scale);
  check_launch("attention_decode");
}

}  // namespace music3::ops
