// layer_norm / add_layer_norm on CUDA, provider cuda.layer_norm.pipelined (opt-in: not yet run on a GPU): the
// per-row arithmetic of layer_norm.cu's layer_norm_warp_kernel (layer_norm_warp_row.cuh: one warp per row), so its
// bits, with persistent warps: warp w of W handles rows w, w + W, ..., and loads the next row's x and r chunks as
// soon as the current row's are unpacked, so those loads are in flight while it reduces, normalises and stores the
// current row.
// Why: on the H200 (session 26, reports/bench/acoustic/2026-12-04-6d8690b-h200-dit-profile) the warp kernel took 12.4 us
// per DiT call (1,380 rows of 2,048) at 1.8 TB/s: its one wave of warps loads, computes and stores in lockstep, so the
// reads, the ~3 us of arithmetic and the writes follow one another instead of overlapping.
// It takes what the warp kernel takes: rows whose width is a multiple of 8 up to 2048, every tensor 16-byte aligned.
// Launched under PDL (pdl.cuh); h_out may be x (each row's x and r are loaded before its h is stored, and the next
// row's loads read another row).
#include <algorithm>

#include "engine/core/bf16.h"
#include "engine/ops/cuda/cuda_providers.h"
#include "engine/ops/cuda/launch.h"
#include "engine/ops/cuda/layer_norm_warp_row.cuh"
#include "engine/ops/cuda/pdl.cuh"
#include "engine/ops/transformer_ops.h"

namespace music3::ops {
namespace {

constexpr int kWarpsPerBlock = 4;
constexpr int kBlocksPerMultiprocessor = 1;  // 4 warps per multiprocessor, each streaming 2-3 of the DiT's rows
using warp_row::kChunk;
using warp_row::kMaxChunks;

__global__ void __launch_bounds__(kWarpsPerBlock * 32)
    layer_norm_pipelined_kernel(const bf16* x, const bf16* r, const bf16* __restrict__ w, const bf16* __restrict__ b,
                                bf16* h_out, bf16* __restrict__ a_out, int64_t rows, int64_t n, float eps) {
  pdl_wait();
  pdl_trigger();
  const int lane = threadIdx.x % 32;
  const int64_t warps = int64_t{gridDim.x} * kWarpsPerBlock;
  int64_t row = int64_t{blockIdx.x} * kWarpsPerBlock + threadIdx.x / 32;
  if (row >= rows) return;
  const int chunks = warp_row::lane_chunks(n, lane);
  uint4 xv[kMaxChunks], rv[kMaxChunks];
  warp_row::load(x, r, row * n, lane, chunks, xv, rv);
  for (; row < rows; row += warps) {
    const int64_t base = row * n;
    float v[kMaxChunks][8];
    const float sum = warp_row::take(xv, rv, r != nullptr, h_out + base, lane, chunks, v);
    if (row + warps < rows) warp_row::load(x, r, base + warps * n, lane, chunks, xv, rv);  // in flight from here on
    warp_row::normalize(v, sum, w, b, a_out + base, n, eps, lane, chunks);
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
