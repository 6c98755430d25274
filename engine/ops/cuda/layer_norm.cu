// layer_norm / add_layer_norm on CUDA: one block per row. With a residual each thread forms h[i] = bf16(x[i] +
// r[i]) for its own strided indices and writes it to h_out[i] (read back only by the same thread, so h_out == x is
// safe); mean = block sum of h / N, var = block sum of (h - mean)^2 / N (per-thread strided partials, then the
// block's fixed tree, block_reduce.cuh), rstd = 1 / sqrtf(var + eps), out = bf16((h * rstd + (-mean * rstd)) * w
// + b) with round-to-nearest multiplies and adds (no contraction), the CPU provider's formula.
// Rows of N <= kThreads * kPerThread (the DiT's 2048) take layer_norm_row_kernel: the same thread-to-index map, sums
// and formula, so the same bits, with each thread's kPerThread values loaded up front and held in registers (every
// load of x and r issued before any store of h_out, which may be x) instead of re-read from memory by the two later
// passes, launched under PDL (pdl.cuh: every block waits for the earlier kernels before its first read, so its
// launch overlaps the previous kernel's tail); wider rows take layer_norm_kernel, three strided passes over memory.
// Rows whose width is a multiple of 8 up to 2048 with 16-byte aligned tensors (the DiT's 2048 at M = 1,380 rows,
// and the gate geometries' 64 and 128) take layer_norm_warp_kernel instead: one warp per row, so a row needs no
// __syncthreads and the grid is one wave (the block-per-row kernel ran 1.3 waves of 256-thread blocks at a third
// of the copy bandwidth). Lane l holds indices c * 256 + 8 l .. + 7 of chunk c (16-byte loads and stores; a lane
// whose 8 lie past the row's end holds nothing); its partial sums run over its own values in that order, then
// warp_reduce's butterfly, so the bits differ from the other two kernels' order (the gates bound every path
// against the f64 reference and the CPU provider, not against each other).
// The warp kernel's row arithmetic lives in layer_norm_warp_row.cuh.
#include "engine/core/bf16.h"
#include "engine/ops/cuda/block_reduce.cuh"
#include "engine/ops/cuda/cuda_providers.h"
#include "engine/ops/cuda/launch.h"
#include "engine/ops/cuda/layer_norm_warp_row.cuh"
#include "engine/ops/cuda/pdl.cuh"
#include "engine/ops/transformer_ops.h"

namespace music3::ops {
namespace {

constexpr int kThreads = 256;
constexpr int kPerThread = 8;  // the register path's row width: up to kThreads * kPerThread

using warp_row::scale_shift;

__global__ void __launch_bounds__(kThreads)
    layer_norm_kernel(const bf16* x, const bf16* r, const bf16* __restrict__ w,
                      const bf16* __restrict__ b, bf16* h_out, bf16* __restrict__ a_out, int64_t n, float eps) {
  __shared__ float scratch[32];
  const int64_t row = blockIdx.x;
  const bf16* xr = x + row * n;
  const bf16* h = r ? h_out + row * n : xr;  // the normalised row
  float sum = 0.0f;
  for (int64_t i = threadIdx.x; i < n; i += kThreads) {
    float v = to_f32(xr[i]);
    if (r) {
      v = round_bf16(__fadd_rn(v, to_f32(r[row * n + i])));
      h_out[row * n + i] = to_bf16(v);
    }
    sum = __fadd_rn(sum, v);
  }
  const float mean = block_reduce(sum, 0.0f, scratch, SumOp{}) / static_cast<float>(n);
  float sq = 0.0f;
  for (int64_t i = threadIdx.x; i < n; i += kThreads) {
    const float d = __fsub_rn(to_f32(h[i]), mean);
    sq = __fadd_rn(sq, __fmul_rn(d, d));
  }
  const float var = block_reduce(sq, 0.0f, scratch, SumOp{}) / static_cast<float>(n);
  const float2 norm = scale_shift(mean, var, eps);
  const float rstd = norm.x, shift = norm.y;
  for (int64_t i = threadIdx.x; i < n; i += kThreads) {
    const float y = __fadd_rn(__fmul_rn(to_f32(h[i]), rstd), shift);
    a_out[row * n + i] = to_bf16(__fadd_rn(__fmul_rn(y, to_f32(w[i])), to_f32(b[i])));
  }
}

// Index i = threadIdx.x + j * kThreads of the row sits in v[j]: layer_norm_kernel's map and summation order.
__global__ void __launch_bounds__(kThreads)
    layer_norm_row_kernel(const bf16* x, const bf16* r, const bf16* __restrict__ w,
                          const bf16* __restrict__ b, bf16* h_out, bf16* __restrict__ a_out, int64_t n, float eps) {
  __shared__ float scratch[32];
  pdl_wait();
  pdl_trigger();
  const int64_t base = static_cast<int64_t>(blockIdx.x) * n;
  float v[kPerThread], rv[kPerThread];
#pragma unroll
  for (int j = 0; j < kPerThread; ++j) {
    const int64_t i = threadIdx.x + j * kThreads;
    v[j] = i < n ? to_f32(x[base + i]) : 0.0f;
    rv[j] = r && i < n ? to_f32(r[base + i]) : 0.0f;
  }
  float sum = 0.0f;
#pragma unroll
  for (int j = 0; j < kPerThread; ++j) {
    const int64_t i = threadIdx.x + j * kThreads;
    if (i >= n) continue;
    if (r) {
      v[j] = round_bf16(__fadd_rn(v[j], rv[j]));
      h_out[base + i] = to_bf16(v[j]);
    }
    sum = __fadd_rn(sum, v[j]);
  }
  const float mean = block_reduce(sum, 0.0f, scratch, SumOp{}) / static_cast<float>(n);
  float sq = 0.0f;
#pragma unroll
  for (int j = 0; j < kPerThread; ++j) {
    if (threadIdx.x + j * kThreads >= n) continue;
    const float d = __fsub_rn(v[j], mean);
    sq = __fadd_rn(sq, __fmul_rn(d, d));
  }
  const float var = block_reduce(sq, 0.0f, scratch, SumOp{}) / static_cast<float>(n);
  const float2 norm = scale_shift(mean, var, eps);
  const float rstd = norm.x, shift = norm.y;
#pragma unroll
  for (int j = 0; j < kPerThread; ++j) {
    const int64_t i = threadIdx.x + j * kThreads;
    if (i >= n) continue;
    const float y = __fadd_rn(__fmul_rn(v[j], rstd), shift);
    a_out[base + i] = to_bf16(__fadd_rn(__fmul_rn(y, to_f32(w[i])), to_f32(b[i])));
  }
}

constexpr int kWarpRowsPerBlock = 4;
using warp_row::kChunk;
using warp_row::kMaxChunks;

__global__ void __launch_bounds__(kWarpRowsPerBlock * 32)
    layer_norm_warp_kernel(const bf16* x, const bf16* r, const bf16* __restrict__ w,
                           const bf16* __restrict__ b, bf16* h_out, bf16* __restrict__ a_out, int64_t rows,
                           int64_t n, float eps) {
  pdl_wait();
  pdl_trigger();
  const int lane = threadIdx.x % 32;
  const int64_t row = static_cast<int64_t>(blockIdx.x) * kWarpRowsPerBlock + threadIdx.x / 32;
  if (row >= rows) return;
  const int64_t base = row * n;
  const int chunks = warp_row::lane_chunks(n, lane);
  float v[kMaxChunks][8];
  uint4 xv[kMaxChunks], rv[kMaxChunks];
  warp_row::load(x, r, base, lane, chunks, xv, rv);  // every load of x and r before any store of h_out (maybe x)
  const float sum = warp_row::take(xv, rv, r != nullptr, h_out + base, lane, chunks, v);
  warp_row::normalize(v, sum, w, b, a_out + base, n, eps, lane, chunks);
}

}  // namespace

void layer_norm_cuda(const Queue& q, const void* args) {
  const auto& a = *static_cast<const LayerNormArgs*>(args);
  const int64_t rows = a.x.shape[0], n = a.x.shape[1];
  if (n % 8 == 0 && n <= kMaxChunks * kChunk && aligned16(a.x.data) && aligned16(a.r.data) &&
      aligned16(a.w.data) && aligned16(a.b.data) && aligned16(a.h_out.data) && aligned16(a.a_out.data)) {
    const dim3 blocks(static_cast<unsigned>((rows + kWarpRowsPerBlock - 1) / kWarpRowsPerBlock));
    launch_pdl("layer_norm", layer_norm_warp_kernel, blocks, dim3(kWarpRowsPerBlock * 32), 0, stream_of(q),
               a.x.as<const bf16>(), a.r.as<const bf16>(), a.w.as<const bf16>(), a.b.as<const bf16>(),
               a.h_out.as<bf16>(), a.a_out.as<bf16>(), rows, n, a.eps);
    return;
  }
  const dim3 grid(static_cast<unsigned>(rows));
  if (n <= kThreads * kPerThread) {
    launch_pdl("layer_norm", layer_norm_row_kernel, grid, dim3(kThreads), 0, stream_of(q), a.x.as<const bf16>(),
               a.r.as<const bf16>(), a.w.as<const bf16>(), a.b.as<const bf16>(), a.h_out.as<bf16>(),
               a.a_out.as<bf16>(), a.x.shape[1], a.eps);
    return;
  }
  layer_norm_kernel<<<grid, kThreads, 0, stream_of(q)>>>(a.x.as<const bf16>(), a.r.as<const bf16>(),
                                                         a.w.as<const bf16>(), a.b.as<const bf16>(),
                                                         a.h_out.as<bf16>(), a.a_out.as<bf16>(), a.x.shape[1], a.eps);
  check_launch("layer_norm");
}

}  // namespace music3::ops
