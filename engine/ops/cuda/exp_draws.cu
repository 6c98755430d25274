// exp_draws on CUDA: a grid-stride loop, out[i] = sampler::exp1_draw(seed, frame, step, i),
// the same IEEE operation sequence as the CPU provider (built with --fmad=false), so
// the two providers write identical bits.
#include "engine/ops/cuda/cuda_providers.h"
#include "engine/ops/cuda/launch.h"
#include "engine/ops/ops.h"
#include "engine/ops/sampler_math.h"

namespace music3::ops {
namespace {

constexpr int kThreads = 256;

__global__ void exp_draws_kernel(float* __restrict__ out, int64_t n, uint64_t seed, uint64_t frame, uint32_t step) {
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < n;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    out[i] = sampler::exp1_draw(seed, frame, step, static_cast<uint32_t>(i));
}

}  // namespace

void exp_draws_cuda(const Queue& q, const void* args) {
  const auto& p = *static_cast<const ExpDrawsArgs*>(args);
  const int64_t n = p.out.shape[0];
  exp_draws_kernel<<<grid_for(n, kThreads), kThreads, 0, stream_of(q)>>>(p.out.as<float>(), n, p.seed, p.frame,
                                                                         p.step);
  check_launch("exp_draws");
}

}  // namespace music3::ops
