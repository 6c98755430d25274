// add on CUDA: a grid-stride loop over the M x N outputs,
// out[m, n] = bf16( f32(a[m|0, n]) + f32(b[m|0, n]) ), a one-row operand broadcast
// over the rows. Each element is read before it is written by the same thread, so
// out may be the very view of a or b (no __restrict__ here for that reason).
#include "engine/core/bf16.h"
#include "engine/ops/cuda/cuda_providers.h"
#include "engine/ops/cuda/launch.h"
#include "engine/ops/ops.h"

namespace music3::ops {
namespace {

constexpr int kThreads = 256;

__global__ void add_kernel(const bf16* a, const bf16* b, bf16* out, int64_t cols, int64_t a_stride, int64_t b_stride,
                           int64_t total) {
  for (int64_t idx = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; idx < total;
       idx += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t m = idx / cols, n = idx % cols;
    out[idx] = to_bf16(to_f32(a[m * a_stride + n]) + to_f32(b[m * b_stride + n]));
  }
}

}  // namespace

void add_cuda(const Queue& q, const void* args) {
  const auto& p = *static_cast<const AddArgs*>(args);
  const int64_t cols = p.out.shape[1], total = p.out.numel();
  add_kernel<<<grid_for(total, kThreads), kThreads, 0, stream_of(q)>>>(
      p.a.as<const bf16>(), p.b.as<const bf16>(), p.out.as<bf16>(), cols, p.a.shape[0] == 1 ? 0 : cols,
      p.b.shape[0] == 1 ? 0 : cols, total);
  check_launch("add");
}

}  // namespace music3::ops
