// silu_and_mul on CUDA: a grid-stride loop over the M x I outputs.
// out[m, i] = bf16( bf16(g / (1 + expf(-g))) * u ), g = in[m, i], u = in[m, I + i]
// (IEEE division; expf is CUDA's full-precision one, within 2 ulp of e^x). With gate_second the halves swap
// roles: g = in[m, I + i], u = in[m, i]. Rows of 8-aligned width take a vectorised path: each thread turns 8
// consecutive outputs (16-byte loads and store) of each of its rows with the same per-element arithmetic.
// Both launch under PDL (pdl.cuh): every block waits for the earlier kernels before its first read (`in`, which the
// kernel before wrote, is not __restrict__: no non-coherent loads), then lets the next kernel (the down
// projection's GEMV, which prefetches its weights) start.
#include <algorithm>
#include <climits>
#include <cstdint>

#include "engine/core/bf16.h"
#include "engine/ops/cuda/cuda_providers.h"
#include "engine/ops/cuda/launch.h"
#include "engine/ops/cuda/pdl.cuh"
#include "engine/ops/ops.h"

namespace music3::ops {
namespace {

constexpr int kThreads = 256;

__device__ __forceinline__ bf16 silu_mul(float g, float u) { return to_bf16(round_bf16(g / (1.0f + expf(-g))) * u); }

__global__ void silu_and_mul_kernel(const bf16* in, bf16* __restrict__ out, int64_t inner,
                                    int64_t total, int64_t gate_off, int64_t up_off) {
  pdl_wait();
  pdl_trigger();
  for (int64_t idx = blockIdx.x * static_cast<int64_t>(blockDim.x) + threadIdx.x; idx < total;
       idx += static_cast<int64_t>(gridDim.x) * blockDim.x) {
    const int64_t m = idx / inner, i = idx % inner;
    const float g = to_f32(in[m * 2 * inner + gate_off + i]);
    const float u = to_f32(in[m * 2 * inner + up_off + i]);
    out[idx] = silu_mul(g, u);
  }
}

// Eight outputs per thread per row; inner % 8 == 0 and 16-byte aligned rows. A 2-D grid: blockIdx.x * kThreads + tid
// is the vector within a row (no thread divides a flat 64-bit index by `inner`: a software division per vector, which
// cost the DiT's 1380 x 8192 call 27.8 against 26.3 us on the H200), and the grid's rows (y) are sized to the blocks
// the device holds at once, so each block walks rows y, y + gridDim.y, ... and a thread loads its next row's two
// vectors before it computes the current one: its loads overlap the expf and the IEEE division, which at that shape
// cost about as much time as the bytes. The per-element arithmetic is silu_mul's, whatever the grid.
__global__ void silu_and_mul_vec8_kernel(const bf16* in, bf16* __restrict__ out, int inner,
                                         int rows, int gate_off, int up_off) {
  pdl_wait();
  pdl_trigger();
  const int i = (blockIdx.x * kThreads + threadIdx.x) * 8;
  if (i >= inner || static_cast<int>(blockIdx.y) >= rows) return;
  auto row_of = [&](int m) { return in + int64_t{m} * 2 * inner; };
  int m = blockIdx.y;
  uint4 gv = *reinterpret_cast<const uint4*>(row_of(m) + gate_off + i);
  uint4 uv = *reinterpret_cast<const uint4*>(row_of(m) + up_off + i);
  for (;;) {
    const int next = m + static_cast<int>(gridDim.y);
    uint4 gn = gv, un = uv;
    if (next < rows) {
      gn = *reinterpret_cast<const uint4*>(row_of(next) + gate_off + i);
      un = *reinterpret_cast<const uint4*>(row_of(next) + up_off + i);
    }
    const bf16* g = reinterpret_cast<const bf16*>(&gv);
    const bf16* u = reinterpret_cast<const bf16*>(&uv);
    uint4 ov;
    bf16* o = reinterpret_cast<bf16*>(&ov);
#pragma unroll
    for (int j = 0; j < 8; ++j) o[j] = silu_mul(to_f32(g[j]), to_f32(u[j]));
    *reinterpret_cast<uint4*>(out + int64_t{m} * inner + i) = ov;
    if (next >= rows) break;
    m = next;
    gv = gn;
    uv = un;
  }
}

// Blocks of silu_and_mul_vec8_kernel the device holds at once (multiprocessors x resident per multiprocessor).
int vec8_resident_blocks() {
  static const int blocks = [] {
    int per_sm = 0;
    check_cuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, silu_and_mul_vec8_kernel, kThreads, 0),
               "cudaOccupancyMaxActiveBlocksPerMultiprocessor (silu_and_mul)");
    return multiprocessors() * std::max(per_sm, 1);
  }();
  return blocks;
}

}  // namespace

void silu_and_mul_cuda(const Queue& q, const void* args) {
  const auto& p = *static_cast<const SiluAndMulArgs*>(args);
  const int64_t total = p.out.numel(), inner = p.out.shape[1];
  const int64_t gate_off = p.gate_second ? inner : 0, up_off = p.gate_second ? 0 : inner;
  if (total > 0 && inner % 8 == 0 && inner <= INT32_MAX / 2 && aligned16(p.gate_up.data) && aligned16(p.out.data)) {
    const int64_t rows = p.out.shape[0], row_blocks = (inner / 8 + kThreads - 1) / kThreads;
    const int64_t grid_rows = std::max<int64_t>(1, std::min({vec8_resident_blocks() / row_blocks, rows, int64_t{65535}}));
    const dim3 grid(static_cast<unsigned>(row_blocks), static_cast<unsigned>(grid_rows));
    launch_pdl("silu_and_mul", silu_and_mul_vec8_kernel, grid, dim3(kThreads), 0, stream_of(q),
               p.gate_up.as<const bf16>(), p.out.as<bf16>(), static_cast<int>(inner), static_cast<int>(rows),
               static_cast<int>(gate_off), static_cast<int>(up_off));
  } else {
    launch_pdl("silu_and_mul", silu_and_mul_kernel, grid_for(total, kThreads), dim3(kThreads), 0, stream_of(q),
               p.gate_up.as<const bf16>(), p.out.as<bf16>(), inner, total, gate_off, up_off);
  }
}

}  // namespace music3::ops
