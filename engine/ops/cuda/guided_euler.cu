// guided_euler on CUDA: a grid-stride loop over the R x C latents, one thread per element, flow_math.h's
// arithmetic (the same bits as the CPU provider; the build's --fmad=false keeps every product unfused).
#include "engine/core/bf16.h"
#include "engine/ops/cuda/cuda_providers.h"
#include "engine/ops/cuda/launch.h"
#include "engine/ops/flow_math.h"
#include "engine/ops/flow_ops.h"

namespace music3::ops {
namespace {

constexpr int kThreads = 256;

__global__ void guided_euler_kernel(const bf16* __restrict__ pair, bf16* __restrict__ x, int64_t width,
                                    int64_t total, float scale, float dt) {
  const float dt_bf16 = round_bf16(dt);
  for (int64_t idx = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; idx < total;
       idx += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t r = idx / width, c = idx % width;
    const float cond = to_f32(pair[2 * r * width + c]);
    const float uncond = to_f32(pair[(2 * r + 1) * width + c]);
    const float v = flow::guided_velocity(cond, uncond, scale);
    x[idx] = to_bf16(flow::euler_update(to_f32(x[idx]), v, dt_bf16));
  }
}

}  // namespace

void guided_euler_cuda(const Queue& q, const void* args) {
  const auto& a = *static_cast<const GuidedEulerArgs*>(args);
  const int64_t total = a.x.numel();
  if (total == 0) return;
  guided_euler_kernel<<<grid_for(total, kThreads), kThreads, 0, stream_of(q)>>>(
      a.pair.as<const bf16>(), a.x.as<bf16>(), a.x.shape[1], total, a.scale, a.dt);
  check_launch("guided_euler");
}

}  // namespace music3::ops
