// snake on CUDA: a grid-stride loop over elements, the six ops each rounded to bf16 as in snake_cpu; element i's
// channel is (i / step) % C with step T for [B, C, T] and 1 for [B, T, C] (ActLayout::ChannelsLast); sinf is
// CUDA's full-range one (within 2 ulp of f32 sin, so the bf16 rounding of sin(bf16 a x) can differ from the
// host's in rare ties: the device band gate measures it). The index arithmetic (a division and a remainder per
// element) is 32-bit when every index the loop forms fits int32 (a window's largest activation, 2 x 96 x 352768
// values, does), 64-bit otherwise.
#include <climits>

#include "engine/core/bf16.h"
#include "engine/ops/cuda/cuda_providers.h"
#include "engine/ops/cuda/launch.h"
#include "engine/ops/vocoder_ops.h"

namespace music3::ops {
namespace {

constexpr int kThreads = 256;

template <typename Index>
__global__ void snake_kernel(const bf16* __restrict__ x, const bf16* __restrict__ alpha, bf16* __restrict__ out,
                             Index channels, Index step, Index total) {
  for (Index i = blockIdx.x * static_cast<Index>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<Index>(gridDim.x) * blockDim.x) {
    const float a = to_f32(alpha[(i / step) % channels]);
    const float inv = round_bf16(1.0f / round_bf16(a + 1e-9f));
    const float v = to_f32(x[i]);
    const float s = round_bf16(sinf(round_bf16(a * v)));
    out[i] = to_bf16(v + round_bf16(inv * round_bf16(s * s)));
  }
}

}  // namespace

void snake_cuda(const Queue& q, const void* args) {
  const auto& p = *static_cast<const SnakeArgs*>(args);
  const int64_t total = p.x.numel();
  const ActAxes act = act_axes(p.act);
  const int64_t step = p.act == ActLayout::ChannelsLast ? 1 : p.x.shape[act.time];
  const unsigned grid = grid_for(total, kThreads);
  if (total + int64_t(grid) * kThreads <= INT_MAX)  // i + the grid's stride never leaves int32
    snake_kernel<int32_t><<<grid, kThreads, 0, stream_of(q)>>>(p.x.as<const bf16>(), p.alpha.as<const bf16>(),
                                                               p.out.as<bf16>(), static_cast<int32_t>(p.x.shape[act.channels]),
                                                               static_cast<int32_t>(step), static_cast<int32_t>(total));
  else
    snake_kernel<int64_t><<<grid, kThreads, 0, stream_of(q)>>>(p.x.as<const bf16>(), p.alpha.as<const bf16>(),
                                                               p.out.as<bf16>(), p.x.shape[act.channels], step, total);
  check_launch("snake");
}

}  // namespace music3::ops
