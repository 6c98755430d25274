// embedding_gather on CUDA: one block per output row, out[m, :] = table[ids[m] + offset, :].
// The ids live on the device, so a bad id cannot be refused before the launch
// without a host round trip: a row whose index falls outside the table is written
// as bf16 NaN (0x7FC0) instead, which the non-finite counters downstream report,
// and nothing outside the table is read. (The CPU provider throws instead.)
// Launched under PDL (pdl.cuh): each block waits for the earlier kernels before its first read (the ids, which the
// kernel before may write, as the depth frame's sampler does, are not __restrict__), then lets the next kernel start.
#include "engine/core/bf16.h"
#include "engine/ops/cuda/cuda_providers.h"
#include "engine/ops/cuda/launch.h"
#include "engine/ops/cuda/pdl.cuh"
#include "engine/ops/ops.h"

namespace music3::ops {
namespace {

constexpr int kThreads = 256;

__global__ void embedding_gather_kernel(const bf16* __restrict__ table, const int32_t* ids, bf16* __restrict__ out,
                                        int64_t table_rows, int64_t cols, int64_t offset) {
  pdl_wait();
  pdl_trigger();
  const int64_t m = blockIdx.x;
  const int64_t row = ids[m] + offset;
  bf16* o = out + m * cols;
  if (row < 0 || row >= table_rows) {
    for (int64_t c = threadIdx.x; c < cols; c += kThreads) o[c] = bf16{0x7FC0};
    return;
  }
  const bf16* src = table + row * cols;
  for (int64_t c = threadIdx.x; c < cols; c += kThreads) o[c] = src[c];
}

}  // namespace

void embedding_gather_cuda(const Queue& q, const void* args) {
  const auto& p = *static_cast<const EmbeddingGatherArgs*>(args);
  launch_pdl("embedding_gather", embedding_gather_kernel, dim3(static_cast<unsigned>(p.ids.shape[0])), dim3(kThreads), 0,
             stream_of(q), p.table.as<const bf16>(), p.ids.as<const int32_t>(), p.out.as<bf16>(), p.table.shape[0],
             p.table.shape[1], p.offset);
}

}  // namespace music3::ops
