// qk_norm_rope on CUDA: one block per (row, head) over the q and k heads, the normed head held in shared memory:
//   ss = sum of f32(x)^2 (per-thread partials strided by the 128 threads, then the block's fixed tree);
//   r = 1 / sqrtf(ss / D + eps); n = bf16( bf16(x * r) * w ) with w = q_norm below `heads`, k_norm above; then
//   the thread of dim i < R/2 (R the table's width) rotates the pair (n[i], n[i + R/2]) with rope_pair
//   (rope_pair.cuh: the rotation's arithmetic, shared with cuda.self_attention and its cuDNN form), and dims
//   past R, and every dim of a row whose position is past the table, keep n.
// Every read of the head precedes the barrier, every write follows it (in place). D <= 256.
// Launched under PDL (pdl.cuh): each block waits for the earlier kernels before its first read, then lets
// the next kernel start.
#include <stdexcept>
#include <string>

#include "engine/core/bf16.h"
#include "engine/ops/cuda/block_reduce.cuh"
#include "engine/ops/cuda/cuda_providers.h"
#include "engine/ops/cuda/launch.h"
#include "engine/ops/cuda/pdl.cuh"
#include "engine/ops/cuda/rope_pair.cuh"
#include "engine/ops/lm_ops.h"

namespace music3::ops {
namespace {

constexpr int kThreads = 128;
constexpr int kMaxDim = 256;

struct Geometry {
  int64_t width, dim, rot, positions;
  int heads, count, batch;
  float eps;
};

__global__ void __launch_bounds__(kThreads)
    qk_norm_rope_kernel(bf16* x, const bf16* __restrict__ q_norm, const bf16* __restrict__ k_norm,
                        const bf16* __restrict__ cos, const bf16* __restrict__ sin, const int32_t* pos,
                        Geometry g) {
  __shared__ float scratch[32];
  __shared__ bf16 normed[kMaxDim];
  pdl_wait();
  pdl_trigger();
  const int64_t r = blockIdx.x / g.count;
  const int h = static_cast<int>(blockIdx.x % g.count);
  bf16* head = x + r * g.width + h * g.dim;
  const bf16* w = h < g.heads ? q_norm : k_norm;
  float ss = 0.0f;
  for (int64_t i = threadIdx.x; i < g.dim; i += kThreads) {
    const float v = to_f32(head[i]);
    ss = __fmaf_rn(v, v, ss);  // bf16 * bf16 is exact in f32
  }
  ss = block_reduce(ss, 0.0f, scratch, SumOp{});
  const float inv_rms = 1.0f / sqrtf(ss / static_cast<float>(g.dim) + g.eps);
  for (int64_t i = threadIdx.x; i < g.dim; i += kThreads)
    normed[i] = to_bf16(__fmul_rn(round_bf16(__fmul_rn(to_f32(head[i]), inv_rms)), to_f32(w[i])));
  __syncthreads();
  const int64_t p = int64_t{pos[0]} + r / g.batch, half = g.rot / 2;
  const bool rotate = p >= 0 && p < g.positions;
  const bf16* c = cos + (rotate ? p : 0) * g.rot;
  const bf16* s = sin + (rotate ? p : 0) * g.rot;
  for (int64_t i = threadIdx.x; i < g.dim; i += kThreads) {
    if (rotate && i < half) {
      bf16 lo = normed[i], hi = normed[i + half];
      rope_pair(lo, hi, c, s, i, half);
      head[i] = lo;
      head[i + half] = hi;
    } else if (!rotate || i >= g.rot) {
      head[i] = normed[i];
    }
  }
}

}  // namespace

void qk_norm_rope_cuda(const Queue& q, const void* args) {
  const auto& a = *static_cast<const QkNormRopeArgs*>(args);
  Geometry g{};
  g.width = a.x.shape[1];
  g.dim = a.q_norm.shape[0];
  g.rot = a.cos.shape[1];
  g.positions = a.cos.shape[0];
  g.heads = a.heads;
  g.count = a.heads + a.kv_heads;
  g.batch = a.batch;
  g.eps = a.eps;
  if (g.dim > kMaxDim)
    throw std::invalid_argument("qk_norm_rope (cuda): head width " + std::to_string(g.dim) + " exceeds " +
                                std::to_string(kMaxDim));
  launch_pdl("qk_norm_rope", qk_norm_rope_kernel, dim3(static_cast<unsigned>(a.x.shape[0] * g.count)), dim3(kThreads),
             0, stream_of(q), a.x.as<bf16>(), a.q_norm.as<const bf16>(), a.k_norm.as<const bf16>(),
             a.cos.as<const bf16>(), a.sin.as<const bf16>(), a.pos.as<const int32_t>(), g);
}

}  // namespace music3::ops
