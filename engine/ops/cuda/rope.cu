// rope on CUDA: one block per (row, head), heads head_dim apart; each thread owns pairs (i, i + D/2) of the
// first D dims of the head (D = head_dim, or fewer: partial rotary), reads
// both before writing both, so the in-place rotation is race-free (rope_pair.cuh: the arithmetic, the CPU
// provider's bits).
// The position comes from pos[0] on the device; a row whose position is past the table
// is left untouched. Launched under PDL (pdl.cuh): each block waits for the earlier kernels before its first
// read (the position included), then lets the next kernel start.
#include "engine/core/bf16.h"
#include "engine/ops/cuda/cuda_providers.h"
#include "engine/ops/cuda/launch.h"
#include "engine/ops/cuda/pdl.cuh"
#include "engine/ops/cuda/rope_pair.cuh"
#include "engine/ops/lm_ops.h"

namespace music3::ops {
namespace {

constexpr int kThreads = 64;  // D/2 pairs of a 128-wide head: one pass

__global__ void __launch_bounds__(kThreads)
    rope_kernel(bf16* x, const bf16* __restrict__ cos, const bf16* __restrict__ sin, const int32_t* __restrict__ pos,
                int64_t width, int64_t dim, int64_t stride, int count, int batch, int64_t positions) {
  pdl_wait();
  pdl_trigger();
  const int64_t r = blockIdx.x / count, p = int64_t{pos[0]} + r / batch, half = dim / 2;
  if (p < 0 || p >= positions) return;
  const bf16* c = cos + p * dim;
  const bf16* s = sin + p * dim;
  bf16* head = x + r * width + (blockIdx.x % count) * stride;
  for (int64_t i = threadIdx.x; i < half; i += kThreads) rope_pair(head[i], head[i + half], c, s, i, half);
}

}  // namespace

void rope_cuda(const Queue& q, const void* args) {
  const auto& a = *static_cast<const RopeArgs*>(args);
  launch_pdl("rope", rope_kernel, dim3(static_cast<unsigned>(a.x.shape[0] * a.count)), dim3(kThreads), 0,
             stream_of(q), a.x.as<bf16>(), a.cos.as<const bf16>(), a.sin.as<const bf16>(),
             a.pos.as<const int32_t>(), a.x.shape[1], a.cos.shape[1], a.head_dim, a.count, a.batch, a.cos.shape[0]);
}

}  // namespace music3::ops
