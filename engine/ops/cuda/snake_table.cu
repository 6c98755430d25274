// cuda.snake.table: snake on CUDA with the sine's half from a 32,768-entry table (snake_table.cuh), so the kernel is
// a stream of 16-byte loads and stores with a shared-memory lookup per element, not a full-range sinf per element.
// The table (64 KiB, bf16(bf16(sin(u))^2) per bf16 magnitude pattern u: the square is even) is written at build time
// by snake_table_gen from the CPU provider's snake_sin_square and compiled in as device data: no state is set up at
// run time, and the result is the CPU provider's bits (cuda.snake's sinf differs from the C library's in rare bf16
// ties). Blocks: two per multiprocessor (grid-stride), 1,024 threads each, so a multiprocessor holds 2,048 threads (the
// 65,536-entry table of 128 KiB held one block: 1.4 TB/s at 96 channels on the H200, 16f4763); each block first copies
// the table into shared memory (16-byte copies) and forms (alpha, inverse) per channel, then runs one of two forms, as
// cuda.snake does:
// - 16-byte form (x and out 16-byte aligned, and C % 8 == 0 channels-last or T % 8 == 0 channels-first): 8 elements
//   per step, channels c .. c + 7 (channels-last) or all c (channels-first);
// - element form (any other shape): one element per step.
// Channels up to 2,048 (the per-channel table: 16 KiB beside the 64 KiB); x may be out.
#include <algorithm>
#include <climits>

#include "engine/core/bf16.h"
#include "engine/ops/cuda/cuda_providers.h"
#include "engine/ops/cuda/launch.h"
#include "engine/ops/cuda/snake_table.cuh"
#include "engine/ops/vocoder_ops.h"

namespace music3::ops {
namespace {

__device__ __align__(16) const uint16_t kSinSquareTable[snake_table::kEntries] = {
#include "snake_sin_square_table.inc"
};

constexpr int kThreads = 1024;
constexpr int kBlocksPerMultiprocessor = 2;  // 2 x (64 + up to 16) KiB of shared memory, 2,048 threads
constexpr int kVec = 8;  // bf16 per 16-byte vector
constexpr int kMaxChannels = 2048;
constexpr size_t kTableBytes = snake_table::kEntries * sizeof(uint16_t);
constexpr size_t kSharedBytes = kTableBytes + kMaxChannels * sizeof(snake_table::Channel);

// kVec8: `count` vectors of 8 (channels c .. c + 7 when kChannelsLast, else all c); otherwise `count` elements.
template <bool kVec8, bool kChannelsLast, typename Index>
__global__ void __launch_bounds__(kThreads, kBlocksPerMultiprocessor)
    snake_table_kernel(const bf16* x, const bf16* __restrict__ alpha, bf16* out, Index channels, Index step,
                       Index count) {
  extern __shared__ __align__(16) unsigned char shared[];
  uint16_t* table = reinterpret_cast<uint16_t*>(shared);
  auto* chan = reinterpret_cast<snake_table::Channel*>(shared + kTableBytes);
  for (int i = threadIdx.x; i < int(kTableBytes / sizeof(uint4)); i += kThreads)
    reinterpret_cast<uint4*>(table)[i] = reinterpret_cast<const uint4*>(kSinSquareTable)[i];
  for (Index c = threadIdx.x; c < channels; c += kThreads) chan[c] = snake_table::channel_for(alpha[c]);
  __syncthreads();
  const Index stride = static_cast<Index>(gridDim.x) * kThreads;
  if constexpr (kVec8) {
    // Two vectors per step, both loaded before either is formed: 32 bytes in flight per thread.
    const auto form = [&](Index v, uint4 xv) {
      const Index first = v * kVec, c = (first / step) % channels;
      bf16* e = reinterpret_cast<bf16*>(&xv);
#pragma unroll
      for (int k = 0; k < kVec; ++k) e[k] = snake_table::snake_by_table(e[k], chan[kChannelsLast ? c + k : c], table);
      *reinterpret_cast<uint4*>(out + first) = xv;
    };
    for (Index v = blockIdx.x * static_cast<Index>(kThreads) + threadIdx.x; v < count; v += 2 * stride) {
      const bool second = v + stride < count;
      const uint4 a = *reinterpret_cast<const uint4*>(x + v * kVec);
      const uint4 b = second ? *reinterpret_cast<const uint4*>(x + (v + stride) * kVec) : a;
      form(v, a);
      if (second) form(v + stride, b);
    }
  } else {
    for (Index v = blockIdx.x * static_cast<Index>(kThreads) + threadIdx.x; v < count; v += stride)
      out[v] = snake_table::snake_by_table(x[v], chan[(v / step) % channels], table);
  }
}

template <bool kVec8, bool kChannelsLast, typename Index>
void launch(const SnakeArgs& p, Index channels, Index step, Index count, cudaStream_t stream) {
  auto* kernel = snake_table_kernel<kVec8, kChannelsLast, Index>;
  static const bool allowed = [kernel] {  // once per kernel, as gemv_bt.cuh's resident_blocks()
    check_cuda(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(kSharedBytes)),
               "snake (cuda.snake.table): cudaFuncSetAttribute");
    return true;
  }();
  (void)allowed;
  const unsigned grid = std::min(grid_for(count, kThreads),
                                 static_cast<unsigned>(kBlocksPerMultiprocessor * std::max(multiprocessors(), 1)));
  const size_t shared = kTableBytes + size_t(channels) * sizeof(snake_table::Channel);
  kernel<<<grid, kThreads, shared, stream>>>(p.x.as<const bf16>(), p.alpha.as<const bf16>(), p.out.as<bf16>(), channels,
                                             step, count);
}

template <typename Index>
void launch_forms(const SnakeArgs& p, int64_t total, int64_t step, cudaStream_t stream) {
  const auto channels = static_cast<Index>(p.x.shape[act_axes(p.act).channels]);
  const bool last = p.act == ActLayout::ChannelsLast;
  const bool vec8 = aligned16(p.x.data) && aligned16(p.out.data) && (last ? channels % kVec == 0 : step % kVec == 0);
  if (vec8 && last) launch<true, true, Index>(p, channels, Index(step), Index(total / kVec), stream);
  else if (vec8) launch<true, false, Index>(p, channels, Index(step), Index(total / kVec), stream);
  else launch<false, false, Index>(p, channels, Index(step), Index(total), stream);
}

}  // namespace

bool snake_table_supports(const void* args) {
  const auto& p = *static_cast<const SnakeArgs*>(args);
  if (p.x.shape[act_axes(p.act).channels] > kMaxChannels) return false;
  static const bool fits = [] {  // asked once per process, like multiprocessors()
    int device = 0, optin = 0;
    return cudaGetDevice(&device) == cudaSuccess &&
           cudaDeviceGetAttribute(&optin, cudaDevAttrMaxSharedMemoryPerBlockOptin, device) == cudaSuccess &&
           size_t(optin) >= kSharedBytes;
  }();
  return fits;
}

void snake_table_cuda(const Queue& q, const void* args) {
  const auto& p = *static_cast<const SnakeArgs*>(args);
  const int64_t total = p.x.numel();
  const int64_t step = p.act == ActLayout::ChannelsLast ? 1 : p.x.shape[act_axes(p.act).time];
  // Every index formed (a vector's first element two grid strides on) stays in int32 up to ~1.07e9 elements.
  if (total + 2 * int64_t(kVec) * kThreads * 65535 <= INT_MAX)
    launch_forms<int32_t>(p, total, step, stream_of(q));
  else
    launch_forms<int64_t>(p, total, step, stream_of(q));
  check_launch("snake (cuda.snake.table)");
}

}  // namespace music3::ops
