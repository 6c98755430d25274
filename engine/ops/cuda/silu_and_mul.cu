// silu_and_mul on CUDA: a grid-stride loop over the M x I outputs.
// out[m, i] = bf16( bf16(g / (1 + expf(-g))) * u ), g = in[m, i], u = in[m, I + i]
// (IEEE division; expf is CUDA's full-precision one, within 2 ulp of e^x).
#include "engine/core/bf16.h"
#include "engine/ops/cuda/cuda_providers.h"
#include "engine/ops/cuda/launch.h"
#include "engine/ops/ops.h"

namespace music3::ops {
namespace {

constexpr int kThreads = 256;

__global__ void silu_and_mul_kernel(const bf16* __restrict__ in, bf16* __restrict__ out, int64_t inner,
                                    int64_t total) {
  for (int64_t idx = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; idx < total;
       idx += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t m = idx / inner, i = idx % inner;
    const float g = to_f32(in[m * 2 * inner + i]);
    const float u = to_f32(in[m * 2 * inner + inner + i]);
    out[idx] = to_bf16(round_bf16(g / (1.0f + expf(-g))) * u);
  }
}

}  // namespace

void silu_and_mul_cuda(const Queue& q, const void* args) {
  const auto& p = *static_cast<const SiluAndMulArgs*>(args);
  const int64_t total = p.out.numel();
  silu_and_mul_kernel<<<grid_for(total, kThreads), kThreads, 0, stream_of(q)>>>(
      p.gate_up.as<const bf16>(), p.out.as<bf16>(), p.out.shape[1], total);
  check_launch("silu_and_mul");
}

}  // namespace music3::ops
