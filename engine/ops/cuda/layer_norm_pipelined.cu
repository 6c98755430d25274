// layer_norm / add_layer_norm on CUDA, provider cuda.layer_norm.pipelined (opt-in: not yet run on a GPU): the
// per-row arithmetic of layer_norm.cu's layer_norm_warp_kernel (one warp per row, lane l holding indices
// c * 256 + 8 l .. + 7 of chunk c, its partial sums in that order, then warp_reduce's butterfly), so its bits, with
// persistent warps: warp w of W handles rows w, w + W, ..., and loads the next row's x and r chunks as soon as the
// current row's are unpacked, so those loads are in flight while it reduces, normalises and stores the current row.
// Why: on the H200 (session 26, reports/bench/acoustic/2026-12-04-6d8690b-h200-dit-profile) the warp kernel took 12.4 us
// per DiT call (1,380 rows of 2,048) at 1.8 TB/s: its one wave of warps loads, computes and stores in lockstep, so the
// reads, the ~3 us of arithmetic and the writes follow one another instead of overlapping.
// It takes what the warp kernel takes: rows whose width is a multiple of 8 up to 2048, every tensor 16-byte aligned.
// Launched under PDL (pdl.cuh); h_out may be x (each row's x and r are loaded before its h is stored, and the next
// row's loads read another row).
#include <algorithm>

#include "engine/core/bf16.h"
#include "engine/ops/cuda/block_reduce.cuh"
#include "engine/ops/cuda/cuda_providers.h"
#include "engine/ops/cuda/launch.h"
#include "engine/ops/cuda/pdl.cuh"
#include "engine/ops/transformer_ops.h"

namespace music3::ops {
namespace {

constexpr int kWarpsPerBlock = 4;
constexpr int kBlocksPerMultiprocessor = 1;  // 4 warps per multiprocessor, each streaming 2-3 of the DiT's rows
constexpr int kChunk = 256;                  // one 16-byte load per lane
constexpr int kMaxChunks = 2048 / kChunk;

__device__ __forceinline__ void unpack8(const uint4& u, float* f) {
  const bf16* h = reinterpret_cast<const bf16*>(&u);
#pragma unroll
  for (int k = 0; k < 8; ++k) f[k] = to_f32(h[k]);
}

// The lane's chunks of row `row` (c < chunks) into xv, rv.
__device__ __forceinline__ void load_row(const bf16* x, const bf16* r, int64_t row, int64_t n, int lane, int chunks,
                                         uint4 (&xv)[kMaxChunks], uint4 (&rv)[kMaxChunks]) {
#pragma unroll
  for (int c = 0; c < kMaxChunks; ++c) {
    if (c >= chunks) break;
    const int64_t i = row * n + c * kChunk + lane * 8;
    xv[c] = *reinterpret_cast<const uint4*>(x + i);
    if (r) rv[c] = *reinterpret_cast<const uint4*>(r + i);
  }
}

__global__ void __launch_bounds__(kWarpsPerBlock * 32)
    layer_norm_pipelined_kernel(const bf16* x, const bf16* r, const bf16* __restrict__ w, const bf16* __restrict__ b,
                                bf16* h_out, bf16* __restrict__ a_out, int64_t rows, int64_t n, float eps) {
  pdl_wait();
  pdl_trigger();
  const int lane = threadIdx.x % 32;
  const int64_t warps = int64_t{gridDim.x} * kWarpsPerBlock;
  int64_t row = int64_t{blockIdx.x} * kWarpsPerBlock + threadIdx.x / 32;
  if (row >= rows) return;
  // Chunks this lane holds: its first index c * 256 + 8 lane lies inside the row.
  const int chunks = static_cast<int>((n - lane * 8 + kChunk - 1) / kChunk);
  uint4 xv[kMaxChunks], rv[kMaxChunks];
  load_row(x, r, row, n, lane, chunks, xv, rv);
  for (; row < rows; row += warps) {
    const int64_t base = row * n;
    float v[kMaxChunks][8];
    float sum = 0.0f;
#pragma unroll
    for (int c = 0; c < kMaxChunks; ++c) {
      if (c >= chunks) break;
      unpack8(xv[c], v[c]);
      if (r) {
        float rf[8];
        unpack8(rv[c], rf);
        uint4 hv;
        bf16* hb = reinterpret_cast<bf16*>(&hv);
#pragma unroll
        for (int k = 0; k < 8; ++k) {
          v[c][k] = round_bf16(__fadd_rn(v[c][k], rf[k]));
          hb[k] = to_bf16(v[c][k]);
        }
        *reinterpret_cast<uint4*>(h_out + base + c * kChunk + lane * 8) = hv;
      }
#pragma unroll
      for (int k = 0; k < 8; ++k) sum = __fadd_rn(sum, v[c][k]);
    }
    if (row + warps < rows) load_row(x, r, row + warps, n, lane, chunks, xv, rv);  // in flight from here on
    const float mean = warp_reduce(sum, SumOp{}) / static_cast<float>(n);
    float sq = 0.0f;
#pragma unroll
    for (int c = 0; c < kMaxChunks; ++c) {
      if (c >= chunks) break;
#pragma unroll
      for (int k = 0; k < 8; ++k) {
        const float d = __fsub_rn(v[c][k], mean);
        sq = __fadd_rn(sq, __fmul_rn(d, d));
      }
    }
    const float var = warp_reduce(sq, SumOp{}) / static_cast<float>(n);
    const float rstd = 1.0f / sqrtf(var + eps), shift = -mean * rstd;  // layer_norm.cu's scale_shift
#pragma unroll
    for (int c = 0; c < kMaxChunks; ++c) {
      if (c >= chunks) break;
      const int64_t i = c * kChunk + lane * 8;
      float wf[8], bfv[8];
      unpack8(*reinterpret_cast<const uint4*>(w + i), wf);
      unpack8(*reinterpret_cast<const uint4*>(b + i), bfv);
      uint4 av;
      bf16* ab = reinterpret_cast<bf16*>(&av);
#pragma unroll
      for (int k = 0; k < 8; ++k) {
        const float y = __fadd_rn(__fmul_rn(v[c][k], rstd), shift);
        ab[k] = to_bf16(__fadd_rn(__fmul_rn(y, wf[k]), bfv[k]));
      }
      *reinterpret_cast<uint4*>(a_out + base + i) = av;
    }
  }
}

}  // namespace

bool layer_norm_pipelined_supports(const void* args) {
  const auto& a = *static_cast<const LayerNormArgs*>(args);
  const int64_t n = a.x.shape[1];
  return n % 8 == 0 && n <= kMaxChunks * kChunk && aligned16(a.x.data) && aligned16(a.r.data) &&
         aligned16(a.w.data) && aligned16(a.b.data) && aligned16(a.h_out.data) && aligned16(a.a_out.data);
}

void layer_norm_pipelined_cuda(const Queue& q, const void* args) {
  const auto& a = *static_cast<const LayerNormArgs*>(args);
  const int64_t rows = a.x.shape[0], n = a.x.shape[1];
  const int64_t row_blocks = (rows + kWarpsPerBlock - 1) / kWarpsPerBlock;
  const int64_t blocks = std::min<int64_t>(row_blocks, int64_t{multiprocessors()} * kBlocksPerMultiprocessor);
  launch_pdl("layer_norm (pipelined)", layer_norm_pipelined_kernel, dim3(static_cast<unsigned>(blocks)),
             dim3(kWarpsPerBlock * 32), 0, stream_of(q), a.x.as<const bf16>(), a.r.as<const bf16>(),
             a.w.as<const bf16>(), a.b.as<const bf16>(), a.h_out.as<bf16>(), a.a_out.as<bf16>(), rows, n, a.eps);
}

}  // namespace music3::ops
