// head_rms_norm on CUDA: one block per (row, head). ss = sum of f32(x)^2 (per-thread
// strided partials, then the block's fixed tree); r = 1 / sqrtf(ss / D + eps); out =
// bf16( bf16(x * r) * w ). Each thread reads its elements before the reduction and
// writes the same elements after it, so the in-place update is safe. Launched under PDL (pdl.cuh): each
// block waits for the earlier kernels before its first read, then lets the next kernel start.
#include "engine/core/bf16.h"
#include "engine/ops/cuda/block_reduce.cuh"
#include "engine/ops/cuda/cuda_providers.h"
#include "engine/ops/cuda/launch.h"
#include "engine/ops/cuda/pdl.cuh"
#include "engine/ops/lm_ops.h"

namespace music3::ops {
namespace {

constexpr int kThreads = 128;

__global__ void __launch_bounds__(kThreads) head_rms_norm_kernel(bf16* x, const bf16* __restrict__ w, int64_t width,
                                                                 int64_t dim, int first, int count, float eps) {
  __shared__ float scratch[32];
  pdl_wait();
  pdl_trigger();
  bf16* head = x + static_cast<int64_t>(blockIdx.x / count) * width + (first + blockIdx.x % count) * dim;
  float ss = 0.0f;
  for (int64_t i = threadIdx.x; i < dim; i += kThreads) {
    const float v = to_f32(head[i]);
    ss = __fmaf_rn(v, v, ss);  // bf16 * bf16 is exact in f32
  }
  ss = block_reduce(ss, 0.0f, scratch, SumOp{});
  const float inv_rms = 1.0f / sqrtf(ss / static_cast<float>(dim) + eps);
  for (int64_t i = threadIdx.x; i < dim; i += kThreads)
    head[i] = to_bf16(__fmul_rn(round_bf16(__fmul_rn(to_f32(head[i]), inv_rms)), to_f32(w[i])));
}

}  // namespace

void head_rms_norm_cuda(const Queue& q, const void* args) {
  const auto& a = *static_cast<const HeadRmsNormArgs*>(args);
  const int64_t blocks = a.x.shape[0] * a.count;
  launch_pdl("head_rms_norm", head_rms_norm_kernel, dim3(static_cast<unsigned>(blocks)), dim3(kThreads), 0,
             stream_of(q), a.x.as<bf16>(), a.w.as<const bf16>(), a.x.shape[1], a.w.shape[0], a.first, a.count,
             a.eps);
}

}  // namespace music3::ops
