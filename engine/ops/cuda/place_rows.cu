// place_rows on CUDA: a grid-stride loop over the elements of src, each copied to row row0 + i * row_step, column
// col0 + j of out.
#include "engine/core/bf16.h"
#include "engine/ops/cuda/cuda_providers.h"
#include "engine/ops/cuda/launch.h"
#include "engine/ops/transformer_ops.h"

namespace music3::ops {
namespace {

constexpr int kThreads = 256;

__global__ void place_rows_kernel(const bf16* __restrict__ src, bf16* __restrict__ out, int64_t width,
                                  int64_t out_width, int64_t row0, int64_t row_step, int64_t col0, int64_t total) {
  for (int64_t idx = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; idx < total;
       idx += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t i = idx / width, j = idx % width;
    out[(row0 + i * row_step) * out_width + col0 + j] = src[idx];
  }
}

}  // namespace

void place_rows_cuda(const Queue& q, const void* args) {
  const auto& a = *static_cast<const PlaceRowsArgs*>(args);
  const int64_t total = a.src.numel();
  place_rows_kernel<<<grid_for(total, kThreads), kThreads, 0, stream_of(q)>>>(
      a.src.as<const bf16>(), a.out.as<bf16>(), a.src.shape[1], a.out.shape[1], a.row0, a.row_step, a.col0, total);
  check_launch("place_rows");
}

}  // namespace music3::ops
