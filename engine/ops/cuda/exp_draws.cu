// exp_draws on CUDA: out[s, i] = sampler::exp1_draw(seed, frame, step + s, i), a grid-stride loop over i per row
// (blockIdx.y = s), the same IEEE operation sequence as the CPU provider (built with --fmad=false), so the two
// providers write identical bits. One launch takes the depth frame's S steps (it had been S launches).
#include "engine/ops/cuda/cuda_providers.h"
#include "engine/ops/cuda/launch.h"
#include "engine/ops/ops.h"
#include "engine/ops/sampler_math.h"

namespace music3::ops {
namespace {

constexpr int kThreads = 256;

__global__ void exp_draws_kernel(float* __restrict__ out, int64_t width, uint64_t seed, uint64_t frame,
                                 uint32_t step) {
  const uint32_t s = blockIdx.y;
  float* row = out + int64_t{s} * width;
  for (int64_t i = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; i < width;
       i += static_cast<int64_t>(gridDim.x) * blockDim.x)
    row[i] = sampler::exp1_draw(seed, frame, step + s, static_cast<uint32_t>(i));
}

}  // namespace

bool exp_draws_cuda_supports(const void* args) {
  const auto& out = static_cast<const ExpDrawsArgs*>(args)->out;
  return out.shape.rank == 1 || out.shape[0] <= 65535;  // rows on grid.y
}

void exp_draws_cuda(const Queue& q, const void* args) {
  const auto& p = *static_cast<const ExpDrawsArgs*>(args);
  const int64_t rows = p.out.shape.rank == 2 ? p.out.shape[0] : 1, width = p.out.shape[p.out.shape.rank - 1];
  const dim3 grid(grid_for(width, kThreads), static_cast<unsigned>(rows));
  exp_draws_kernel<<<grid, kThreads, 0, stream_of(q)>>>(p.out.as<float>(), width, p.seed, p.frame, p.step);
  check_launch("exp_draws");
}

}  // namespace music3::ops
