// tanh on CUDA: a grid-stride loop, out = bf16(tanhf(f32(x))) (CUDA's tanhf is within 2 ulp of f32 tanh).
#include "engine/core/bf16.h"
#include "engine/ops/cuda/cuda_providers.h"
#include "engine/ops/cuda/launch.h"
#include "engine/ops/vocoder_ops.h"

namespace music3::ops {
namespace {

constexpr int kThreads = 256;

__global__ void tanh_kernel(const bf16* __restrict__ x, bf16* __restrict__ out, int64_t total) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    out[i] = to_bf16(tanhf(to_f32(x[i])));
}

}  // namespace

void tanh_cuda(const Queue& q, const void* args) {
  const auto& p = *static_cast<const TanhArgs*>(args);
  const int64_t total = p.x.numel();
  tanh_kernel<<<grid_for(total, kThreads), kThreads, 0, stream_of(q)>>>(p.x.as<const bf16>(), p.out.as<bf16>(), total);
  check_launch("tanh");
}

}  // namespace music3::ops
