// snake on CUDA, the six ops each rounded to bf16 as in snake_cpu (snake_value below); element i's channel is
// (i / step) % C with step T for [B, C, T] and 1 for [B, T, C] (ActLayout::ChannelsLast); sinf is CUDA's
// full-range one (within 2 ulp of f32 sin, so the bf16 rounding of sin(bf16 a x) can differ from the host's in
// rare ties: the device band gate measures it). Two kernels with one result per element:
// - 16-byte form (16-byte aligned x and out, and C % 8 == 0 channels-last or T % 8 == 0 channels-first: every
//   vocoder activation): a thread per 8 consecutive elements (one load, one store), whose channels are c .. c + 7
//   (channels-last) or all c (channels-first), found by one division per vector; each block first tabulates
//   (alpha, bf16(1 / bf16(alpha + 1e-9))) per channel in shared memory, so the reciprocal is formed once per
//   channel and block, not per element (the same two roundings, so the same value);
// - element form (any other shape): a grid-stride loop, one element per step.
// The index arithmetic is 32-bit when every index a loop forms fits int32 (a window's largest activation, 2 x 96 x
// 352768 values, does), 64-bit otherwise.
#include <algorithm>
#include <climits>

#include "engine/core/bf16.h"
#include "engine/ops/cuda/cuda_providers.h"
#include "engine/ops/cuda/launch.h"
#include "engine/ops/vocoder_ops.h"

namespace music3::ops {
namespace {

constexpr int kThreads = 256;
constexpr int kVec = 8;                // bf16 per 16-byte vector
constexpr int kMaxTableChannels = 2048;  // the 16-byte form's shared table: 16 KiB
constexpr unsigned kMaxVecBlocks = 2048;  // about two waves of resident blocks on an H200: a table per block

__device__ __forceinline__ float snake_inverse(float a) { return round_bf16(1.0f / round_bf16(a + 1e-9f)); }

// x + bf16(inv * bf16(s^2)), s = bf16(sin(bf16(a x))): snake_cpu's rounding points.
__device__ __forceinline__ bf16 snake_value(float v, float a, float inv) {
  const float s = round_bf16(sinf(round_bf16(a * v)));
  return to_bf16(v + round_bf16(inv * round_bf16(s * s)));
}

template <typename Index>
__global__ void snake_kernel(const bf16* __restrict__ x, const bf16* __restrict__ alpha, bf16* __restrict__ out,
                             Index channels, Index step, Index total) {
  for (Index i = blockIdx.x * static_cast<Index>(blockDim.x) + threadIdx.x; i < total;
       i += static_cast<Index>(gridDim.x) * blockDim.x) {
    const float a = to_f32(alpha[(i / step) % channels]);
    out[i] = snake_value(to_f32(x[i]), a, snake_inverse(a));
  }
}

// 8 elements per thread; kChannelsLast: their channels are c .. c + 7, else all c. x may be out (each vector is
// read before its own store).
template <bool kChannelsLast, typename Index>
__global__ void __launch_bounds__(kThreads)
    snake_vec8_kernel(const bf16* x, const bf16* __restrict__ alpha, bf16* out, Index channels, Index step,
                      Index vectors) {
  __shared__ float2 table[kMaxTableChannels];  // (alpha, its rounded reciprocal) per channel
  for (Index c = threadIdx.x; c < channels; c += kThreads) {
    const float a = to_f32(alpha[c]);
    table[c] = make_float2(a, snake_inverse(a));
  }
  __syncthreads();
  for (Index v = blockIdx.x * static_cast<Index>(kThreads) + threadIdx.x; v < vectors;
       v += static_cast<Index>(gridDim.x) * kThreads) {
    const Index first = v * kVec, c = (first / step) % channels;
    uint4 xv = *reinterpret_cast<const uint4*>(x + first);
    bf16* e = reinterpret_cast<bf16*>(&xv);
#pragma unroll
    for (int k = 0; k < kVec; ++k) {
      const float2 t = table[kChannelsLast ? c + k : c];
      e[k] = snake_value(to_f32(e[k]), t.x, t.y);
    }
    *reinterpret_cast<uint4*>(out + first) = xv;
  }
}

template <typename Index>
void launch_snake(const SnakeArgs& p, int64_t total, int64_t step, cudaStream_t stream) {
  const auto channels = static_cast<Index>(p.x.shape[act_axes(p.act).channels]);
  const bool vec8 = aligned16(p.x.data) && aligned16(p.out.data) && channels <= kMaxTableChannels &&
                    (p.act == ActLayout::ChannelsLast ? channels % kVec == 0 : step % kVec == 0);
  if (vec8) {
    const int64_t vectors = total / kVec;
    const unsigned grid = std::min(grid_for(vectors, kThreads), kMaxVecBlocks);
    if (p.act == ActLayout::ChannelsLast)
      snake_vec8_kernel<true, Index><<<grid, kThreads, 0, stream>>>(
          p.x.as<const bf16>(), p.alpha.as<const bf16>(), p.out.as<bf16>(), channels, Index(step), Index(vectors));
    else
      snake_vec8_kernel<false, Index><<<grid, kThreads, 0, stream>>>(
          p.x.as<const bf16>(), p.alpha.as<const bf16>(), p.out.as<bf16>(), channels, Index(step), Index(vectors));
  } else {
    snake_kernel<Index><<<grid_for(total, kThreads), kThreads, 0, stream>>>(
        p.x.as<const bf16>(), p.alpha.as<const bf16>(), p.out.as<bf16>(), channels, Index(step), Index(total));
  }
}

}  // namespace

void snake_cuda(const Queue& q, const void* args) {
  const auto& p = *static_cast<const SnakeArgs*>(args);
  const int64_t total = p.x.numel();
  const ActAxes act = act_axes(p.act);
  const int64_t step = p.act == ActLayout::ChannelsLast ? 1 : p.x.shape[act.time];
  if (total + int64_t(grid_for(total, kThreads)) * kThreads <= INT_MAX)  // i + the grid's stride never leaves int32
    launch_snake<int32_t>(p, total, step, stream_of(q));
  else
    launch_snake<int64_t>(p, total, step, stream_of(q));
  check_launch("snake");
}

}  // namespace music3::ops
