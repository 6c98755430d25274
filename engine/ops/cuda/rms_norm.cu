// rms_norm on CUDA: one block per row. ss = sum of f32(x)^2 (per-thread strided
// partials, then the block's fixed tree); r = 1 / sqrtf(ss / N + eps) (IEEE sqrt and
// division); out = bf16( bf16(x * r) * w ). Each thread reads x[i] before writing
// out[i] and the sum completes before any write, so out == x (in place) is safe.
#include "engine/core/bf16.h"
#include "engine/ops/cuda/block_reduce.cuh"
#include "engine/ops/cuda/cuda_providers.h"
#include "engine/ops/cuda/launch.h"
#include "engine/ops/ops.h"

namespace music3::ops {
namespace {

constexpr int kThreads = 256;

__global__ void __launch_bounds__(kThreads)
    rms_norm_kernel(const bf16* x, const bf16* __restrict__ w, bf16* out, int64_t n, float eps) {
  __shared__ float scratch[32];
  const bf16* xr = x + blockIdx.x * n;
  bf16* yr = out + blockIdx.x * n;
  float ss = 0.0f;
  for (int64_t i = threadIdx.x; i < n; i += kThreads) {
    const float v = to_f32(xr[i]);
    ss = __fmaf_rn(v, v, ss);  // bf16 * bf16 is exact in f32: identical to mul then add
  }
  ss = block_reduce(ss, 0.0f, scratch, SumOp{});
  const float inv_rms = 1.0f / sqrtf(ss / static_cast<float>(n) + eps);
  for (int64_t i = threadIdx.x; i < n; i += kThreads)
    yr[i] = to_bf16(round_bf16(to_f32(xr[i]) * inv_rms) * to_f32(w[i]));
}

}  // namespace

void rms_norm_cuda(const Queue& q, const void* args) {
  const auto& a = *static_cast<const RmsNormArgs*>(args);
  const int64_t rows = a.x.shape[0];
  // x and out may be one buffer (in place), so neither is declared __restrict__.
  rms_norm_kernel<<<static_cast<unsigned>(rows), kThreads, 0, stream_of(q)>>>(
      a.x.as<const bf16>(), a.w.as<const bf16>(), a.out.as<bf16>(), a.x.shape[1], a.eps);
  check_launch("rms_norm");
}

}  // namespace music3::ops
