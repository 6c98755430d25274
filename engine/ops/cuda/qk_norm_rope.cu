// qk_norm_rope on CUDA: one block per (row, head) over the q and k heads, the head_rms_norm kernel's
// arithmetic, then the rope kernel's, on the head held in shared memory:
//   ss = sum of f32(x)^2 (per-thread partials strided by 128 threads, then the block's fixed tree: the
//   head_rms_norm kernel's block size and order); r = 1 / sqrtf(ss / D + eps); n = bf16( bf16(x * r) * w )
//   with w = q_norm below `heads`, k_norm above; then for i < D/2 of the rotated width Dr (the table's):
//   out[i] = bf16( bf16(n[i] * cos[p, i]) + bf16(-n[i + Dr/2] * sin[p, i]) ), out[i + Dr/2] =
//   bf16( bf16(n[i + Dr/2] * cos[p, i + Dr/2]) + bf16(n[i] * sin[p, i + Dr/2]) ); dims past Dr, and every dim
//   of a row whose position is past the table, keep n. So the bits equal head_rms_norm, head_rms_norm, rope.
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
#include "engine/ops/lm_ops.h"

namespace music3::ops {
namespace {

constexpr int kThreads = 128;  // the head_rms_norm kernel's: the same partial sums and tree
constexpr int kMaxDim = 256;

struct Geometry {
  int64_t width, dim, rot, positions;
  int heads, count, batch;
  float eps;
};

__global__ void __launch_bounds__(kThreads)
    qk_norm_rope_kernel(bf16* x, const bf16* __restrict__ q_norm, const bf16* __restrict__ k_norm,
                        const bf16* __restrict__ cos, const bf16* __restrict__ sin, const int32_t* __restrict__ pos,
                        Geometry g) {
  __shared__ float scratch[32];
  __shared__ float normed[kMaxDim];
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
    normed[i] = round_bf16(__fmul_rn(round_bf16(__fmul_rn(to_f32(head[i]), inv_rms)), to_f32(w[i])));
  __syncthreads();
  const int64_t p = int64_t{pos[0]} + r / g.batch, half = g.rot / 2;
  const bool rotate = p >= 0 && p < g.positions;
  const bf16* c = cos + (rotate ? p : 0) * g.rot;
  const bf16* s = sin + (rotate ? p : 0) * g.rot;
  for (int64_t i = threadIdx.x; i < g.dim; i += kThreads) {
    float v = normed[i];
    if (rotate && i < half)
      v = __fadd_rn(round_bf16(__fmul_rn(normed[i], to_f32(c[i]))),
                    round_bf16(__fmul_rn(-normed[i + half], to_f32(s[i]))));
    else if (rotate && i < g.rot)
      v = __fadd_rn(round_bf16(__fmul_rn(normed[i], to_f32(c[i]))), round_bf16(__fmul_rn(normed[i - half], to_f32(s[i]))));
    head[i] = to_bf16(v);
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
