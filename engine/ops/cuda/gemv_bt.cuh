// The bf16 GEMV behind matmul_bt (M <= 4) on CUDA:
// out[m, n] = bf16( sum_k x[m, k] * f32(w[n, k]) ), f32 accumulation, where x comes
// from an activation source (PlainRows: x = f32(a[m, k])).
//
// Every output's sum has one order, fixed by K alone (not by N, M, the path, the grid
// or the tile), over the 8-value chunks c = 0 .. ceil(K / 8) - 1 of the row:
//   1. 256 partial sums, one per (warp w < 8, lane l < 32): chunks c = (8 j + w) 32 + l in
//      increasing j, each chunk's values in increasing k, each product added by an
//      exact-product fused multiply-add (a bf16 x bf16 product is exact in f32, so it
//      rounds as a multiply then an add would);
//   2. within a warp: a butterfly pairing lanes at distance 1, 2, 4, 8, 16;
//   3. over the warps: warp 0's sum, then + warp 1, ..., + warp 7, in f32.
// Fast path (K % 8 == 0, K <= kFastMaxK, or kFastMaxKNarrow for M <= 2, 16-byte aligned operands): a persistent grid
// (multiprocessors x resident blocks) of 8-warp blocks; block b owns the contiguous
// weight rows [b N / G, (b + 1) N / G) and the activation rows [R y, R y + R)
// (y = blockIdx.y), held in registers as f32 for the lane's chunks (j < J; as packed bf16 in the packed form,
// gemv_bt_packed). Weight rows
// stream in tiles of TILE rows through a ring of STAGES tiles in shared memory, filled by
// cp.async (STAGES - 1 tiles in flight while one is used), so the bytes in flight do not
// cost registers; step 2 runs transposed (each shuffle carries a different output) and
// step 3 through shared memory. Under PDL (pdl.cuh) the first STAGES - 1 tiles are
// requested before pdl_wait(), and with L2_AHEAD the block's next kL2AheadBytes of weight rows are asked into L2 there
// too (prefetch_l2_bulk: a hint, no value changes), so DRAM keeps streaming this kernel's weights while it waits on
// the kernel before it, beyond what the ring holds (a template flag, so the kernels without it are unchanged).
// PAIRED (matmul_bt_silu, fast path only): the grid splits the P = N / 2 output columns; column p reads weight rows
// p (gate) and P + p (up), which sit in a tile as rows 2 i and 2 i + 1 (TILE / 2 columns per tile), each summed in
// the order above (so gate and up are matmul_bt's bits), and the tile's first threads write
// out[m, p] = silu_mul(bf16 gate, bf16 up) (silu_mul.cuh: silu_and_mul's arithmetic) into an [M, P] out.
// Fallback (any K, any alignment): one block per weight row, scalar loads, the same order.
#pragma once
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>

#include "engine/core/bf16.h"
#include "engine/core/cuda/cuda_backend.h"
#include "engine/ops/cuda/async_copy.cuh"
#include "engine/ops/cuda/gemv_split.h"
#include "engine/ops/cuda/launch.h"
#include "engine/ops/cuda/pdl.cuh"
#include "engine/ops/cuda/silu_mul.cuh"
#include "engine/ops/cuda/warp_sum_transposed.cuh"

namespace music3::ops::gemv {

constexpr int kWarps = 8;                // warps of a fast block, splitting K
constexpr int kThreads = kWarps * 32;
constexpr int kChunk = 8;                // bf16 values per 16-byte chunk
constexpr int kMaxJ = 4;                 // chunks per lane at R = 4 activation rows
constexpr int kMaxJNarrow = 6;           // chunks per lane at R <= 2 (the LM's down projection, K = 12288)
constexpr int64_t kFastMaxK = int64_t{kMaxJ} * kWarps * 32 * kChunk;              // 8192
constexpr int64_t kFastMaxKNarrow = int64_t{kMaxJNarrow} * kWarps * 32 * kChunk;  // 12288

__device__ __forceinline__ void unpack_bf16x8(const uint4& v, float (&f)[8]) {
  const uint32_t w[4] = {v.x, v.y, v.z, v.w};
#pragma unroll
  for (int i = 0; i < 4; ++i) {
    f[2 * i] = __uint_as_float(w[i] << 16);
    f[2 * i + 1] = __uint_as_float(w[i] & 0xFFFF0000u);
  }
}

// The activations come from the kernel before, which may still be writing them when this one starts (PDL):
// read through load_produced16(), never __ldg (pdl.cuh).
struct PlainRows {
  const bf16* a;  // [M, K]
  int64_t k;
  __device__ uint4 raw(int m, int64_t c) const { return load_produced16(reinterpret_cast<const uint4*>(a + m * k) + c); }
  __device__ void chunk(int m, int64_t c, float (&f)[8]) const { unpack_bf16x8(raw(m, c), f); }
  __device__ float element(int m, int64_t i) const { return to_f32(a[m * k + i]); }
};

// Shared memory of one stage: TILE rows x J chunks x 256 threads x 16 bytes; each thread copies
// and later reads only its own chunks (slot (r J + j) 256 + tid), so no barrier guards the ring.
template <int TILE, int J>
constexpr int kStageBytes = TILE * J * kThreads * 16;

// What L2_AHEAD asks into L2 per block (the opt-in providers cuda.*.gemv*.l2_ahead). By arithmetic, to be measured:
// the H200 grid of 264 blocks asks 17 MB, which with the ring's ~17-19 MB is about 8 us of DRAM at 4.2 TB/s, the
// length of a boundary with a norm or the attention's combine between two GEMVs (the kernel trace: `add_rms_norm`
// exposes 6.8 us per call on an H100), and well inside the 50 MB L2.
constexpr int64_t kL2AheadBytes = 64 * 1024;

// PACKED: the activations stay in registers as their bf16 chunks (4 registers per chunk instead of 8), unpacked per
// tile; each product and each sum's order are unchanged, so the bits are (the packed provider, below).
template <int R, int J, int TILE, int STAGES, bool PACKED, class Src, bool PAIRED = false, bool L2_AHEAD = false>
__global__ void __launch_bounds__(kThreads)
    gemv_fast_kernel(Src src, const bf16* __restrict__ w, bf16* __restrict__ out, int rows_total, int64_t n_total,
                     int64_t k) {
  constexpr int V = TILE * R;
  constexpr int kRowsPerColumn = PAIRED ? 2 : 1;            // weight rows behind one output column
  constexpr int kColumnsPerTile = TILE / kRowsPerColumn;
  static_assert(TILE % kRowsPerColumn == 0, "whole pairs per tile");
  extern __shared__ uint4 ring[];  // [STAGES][TILE][J][kThreads]
  __shared__ float partial[2][kWarps][V];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int m0 = static_cast<int>(blockIdx.y) * R;
  const int64_t columns = n_total / kRowsPerColumn;  // of out
  const int64_t n_begin = split_begin(blockIdx.x, gridDim.x, columns);
  const int64_t n_end = split_begin(blockIdx.x + 1, gridDim.x, columns);
  const int64_t tiles = (n_end - n_begin + kColumnsPerTile - 1) / kColumnsPerTile;
  const int64_t chunks = k / kChunk;
  const uint4* w16 = reinterpret_cast<const uint4*>(w);
  const uint32_t ring_addr = static_cast<uint32_t>(__cvta_generic_to_shared(ring));
  int64_t c[J];
  bool valid[J];
#pragma unroll
  for (int j = 0; j < J; ++j) {
    c[j] = (int64_t{j} * kWarps + warp) * 32 + lane;
    valid[j] = c[j] < chunks;
  }

  // Tile t into stage t % STAGES (nothing past the last tile); always one commit group. Tile row r is output column
  // n0 + r / kRowsPerColumn's weight row: that column itself, or (PAIRED) its gate row (r even) or up row (r odd).
  auto issue_tile = [&](int64_t t) {
    if (t < tiles) {
      const int64_t n0 = n_begin + t * kColumnsPerTile;
      const uint32_t stage = ring_addr + static_cast<uint32_t>(t % STAGES) * kStageBytes<TILE, J>;
#pragma unroll
      for (int r = 0; r < TILE; ++r) {
        const int64_t column = n0 + r / kRowsPerColumn;
        const int64_t row = PAIRED && r % 2 == 1 ? columns + column : column;
#pragma unroll
        for (int j = 0; j < J; ++j)
          if (column < n_end && valid[j])
            copy_async16(stage + ((r * J + j) * kThreads + threadIdx.x) * 16, w16 + row * chunks + c[j]);
      }
    }
    commit_group();
  };
#pragma unroll
  for (int s = 0; s < STAGES - 1; ++s) issue_tile(s);  // weights: never written by earlier work
  if constexpr (L2_AHEAD) {
    if (threadIdx.x == 0) {  // the rows after those tiles (PAIRED: as many gate and up rows, half the bytes each)
      const int64_t first = n_begin + int64_t{STAGES - 1} * kColumnsPerTile;
      const int64_t bytes = ::min((n_end - first) * k * 2, kL2AheadBytes / kRowsPerColumn);
      if (bytes > 0)
        for (int g = 0; g < kRowsPerColumn; ++g)
          prefetch_l2_bulk(w + (first + g * columns) * k, static_cast<uint32_t>(bytes));
    }
  }
  pdl_wait();

  constexpr int kHeld = PACKED ? 1 : 8;  // f32 values held per chunk (PACKED: the chunk's uint4 instead)
  float x[R][J][kHeld];
  uint4 xp[R][PACKED ? J : 1];
#pragma unroll
  for (int m = 0; m < R; ++m)
#pragma unroll
    for (int j = 0; j < J; ++j) {
      const bool held = m0 + m < rows_total && valid[j];
      if constexpr (PACKED) {
        xp[m][j] = held ? src.raw(m0 + m, c[j]) : make_uint4(0, 0, 0, 0);
      } else if (held) {
        src.chunk(m0 + m, c[j], x[m][j]);
      } else {
#pragma unroll
        for (int e = 0; e < 8; ++e) x[m][j][e] = 0.0f;
      }
    }
  pdl_trigger();

  for (int64_t t = 0; t < tiles; ++t) {
    issue_tile(t + STAGES - 1);
    wait_groups<STAGES - 1>();  // tile t's group is complete
    const uint4* stage = ring + (t % STAGES) * (kStageBytes<TILE, J> / 16);
    float acc[V];
#pragma unroll
    for (int i = 0; i < V; ++i) acc[i] = 0.0f;
    // Each acc[r R + m] adds its products in increasing j, then e, whichever loop is outer.
    if constexpr (PACKED) {
#pragma unroll
      for (int j = 0; j < J; ++j) {
        if (!valid[j]) continue;
        float xf[R][8];
#pragma unroll
        for (int m = 0; m < R; ++m) unpack_bf16x8(xp[m][j], xf[m]);
#pragma unroll
        for (int r = 0; r < TILE; ++r) {
          float wf[8];
          unpack_bf16x8(stage[(r * J + j) * kThreads + threadIdx.x], wf);
#pragma unroll
          for (int m = 0; m < R; ++m)
#pragma unroll
            for (int e = 0; e < 8; ++e) acc[r * R + m] = __fmaf_rn(xf[m][e], wf[e], acc[r * R + m]);
        }
      }
    } else {
#pragma unroll
      for (int r = 0; r < TILE; ++r)
#pragma unroll
        for (int j = 0; j < J; ++j) {
          if (!valid[j]) continue;
          float wf[8];
          unpack_bf16x8(stage[(r * J + j) * kThreads + threadIdx.x], wf);
#pragma unroll
          for (int m = 0; m < R; ++m)
#pragma unroll
            for (int e = 0; e < 8; ++e) acc[r * R + m] = __fmaf_rn(x[m][j][e], wf[e], acc[r * R + m]);
        }
    }
    const int index = warp_sum_transposed<V>(acc, lane);
    const int parity = static_cast<int>(t & 1);
    if (lane < V) partial[parity][warp][index] = acc[0];
    __syncthreads();  // the other parity's readers (tile t - 1) passed this barrier
    // Output (r, m)'s sum over the warps, in warp order; thread r R + m closes its own.
    const auto warp_total = [&](int index) {
      float sum = partial[parity][0][index];
#pragma unroll
      for (int q = 1; q < kWarps; ++q) sum += partial[parity][q][index];
      return sum;
    };
    if (threadIdx.x < V) {
      const int r = static_cast<int>(threadIdx.x) / R, m = static_cast<int>(threadIdx.x) % R;
      const int64_t column = n_begin + t * kColumnsPerTile + r / kRowsPerColumn;
      if constexpr (PAIRED) {  // the gate row's thread closes its up row's sum too (row r + 1, the same m)
        if (r % 2 == 0 && column < n_end && m0 + m < rows_total)
          out[(m0 + m) * columns + column] =
              silu_mul(round_bf16(warp_total(threadIdx.x)), round_bf16(warp_total(threadIdx.x + R)));
      } else if (column < n_end && m0 + m < rows_total) {
        out[(m0 + m) * n_total + column] = to_bf16(warp_total(threadIdx.x));
      }
    }
  }
}

template <int R, class Src>
__global__ void __launch_bounds__(kThreads)
    gemv_fallback_kernel(Src src, const bf16* __restrict__ w, bf16* __restrict__ out, int rows_total,
                         int64_t n_total, int64_t k) {
  __shared__ float partial[kWarps][R];
  const int lane = threadIdx.x % 32, warp = threadIdx.x / 32;
  const int m0 = static_cast<int>(blockIdx.y) * R;
  const int64_t n = blockIdx.x;
  const bf16* row = w + n * k;
  const int64_t chunks = (k + kChunk - 1) / kChunk;
  float acc[R];
#pragma unroll
  for (int m = 0; m < R; ++m) acc[m] = 0.0f;
  for (int64_t c = int64_t{warp} * 32 + lane; c < chunks; c += kThreads) {
    for (int64_t i = c * kChunk; i < ::min(c * kChunk + kChunk, k); ++i) {
      const float wf = to_f32(row[i]);
#pragma unroll
      for (int m = 0; m < R; ++m)
        if (m0 + m < rows_total) acc[m] = __fmaf_rn(src.element(m0 + m, i), wf, acc[m]);
    }
  }
#pragma unroll
  for (int m = 0; m < R; ++m) {
    for (int o = 1; o < 32; o *= 2) acc[m] += __shfl_xor_sync(0xFFFFFFFFu, acc[m], o);
    if (lane == 0) partial[warp][m] = acc[m];
  }
  __syncthreads();
  if (threadIdx.x < R && m0 + static_cast<int>(threadIdx.x) < rows_total) {
    float sum = partial[0][threadIdx.x];
#pragma unroll
    for (int q = 1; q < kWarps; ++q) sum += partial[q][threadIdx.x];
    out[(m0 + threadIdx.x) * n_total + n] = to_bf16(sum);
  }
}

// Blocks of kKernel resident per multiprocessor (at least 1) with kSharedBytes of dynamic shared
// memory, which it is allowed to use; set up once per kernel.
template <auto kKernel, int kSharedBytes>
int resident_blocks() {
  static const int blocks = [] {
    check_cuda(cudaFuncSetAttribute(kKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kSharedBytes),
               "cudaFuncSetAttribute(MaxDynamicSharedMemorySize)");
    int b = 0;
    check_cuda(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b, kKernel, kThreads, kSharedBytes),
               "cudaOccupancyMaxActiveBlocksPerMultiprocessor");
    return std::max(b, 1);
  }();
  return blocks;
}

// Production shape of a fast launch, keyed on R activation rows and J chunks per lane
// (J = ceil(K / 2048); N only sizes the grid, min(N, multiprocessors x resident blocks)):
// TILE rows per tile and a ring of kRingBytes per block, STAGES = ring / tile bytes (>= 2).
// The aim is bytes in flight per multiprocessor: at the H200's 4.19 TB/s copy ceiling an SM
// must keep ~64 KiB or more of weight reads outstanding, and a block has STAGES - 1 tiles in
// flight while it sums one. Registers (ptxas -v, sm_90) decide how many blocks share an SM:
//   R, J     regs     blocks/SM  TILE  ring     in flight per SM     shapes
//   1, 1..6  40-76    2          4|2   96 KiB   2 x 40-80 KiB        depth K 4096/6144 at M = 1
//   2, 1..3  62-80    2          4     96 KiB   2 x 48-80 KiB        LM qkv, o, gate_up, head (K 4096: 2 x 64)
//   2, 4..5  112-122  2          2     96 KiB   2 x 40-64 KiB        K in (6144, 10240]
//   2, 6     128-144  1          2     192 KiB  144 KiB (3 tiles)    LM down projection (K 12288), without the packed form
//   2, 6 P   128      2          1     96 KiB   2 x 72 KiB           the same, activations packed (gemv_bt_packed)
//   4, 1..4  64-174   2 (1 at 4) 2     64 KiB   2 x 24-56 KiB        depth's first call (M = 4)
// The 2, 6 row: at a 96 KiB ring (2 stages) its 144 registers x 256 threads left room for one
// block per SM, with one 48 KiB tile in flight while it summed (ncu on the H200: ~2.7 TB/s for
// [4096, 12288]); the lone block takes the ring two blocks would share (4 stages: 128 registers,
// one block per SM by shared memory). The tile and ring
// change neither the sum's order (fixed by K alone) nor its bits. The rest is from
// scripts/gpu-perf-probe's H200 table (two blocks per multiprocessor beat one with twice the
// ring; a smaller ring at R = 4).
template <int R, int J>
constexpr bool kLoneBlock = R == 2 && J == 6;
template <int R, int J>
constexpr int kRingBytes = (kLoneBlock<R, J> ? 192 : R == 4 ? 64 : 96) * 1024;
template <int R, int J>
constexpr int kTileRows = R == 4 ? 2 : (R == 1 ? J <= 2 : J <= 3) ? 4 : 2;
template <int R, int TILE, int J>
constexpr int kStages =
    kRingBytes<R, J> / kStageBytes<TILE, J> < 2 ? 2 : kRingBytes<R, J> / kStageBytes<TILE, J>;

// One persistent launch of gemv_fast_kernel<R, J, TILE, STAGES, PACKED, Src, PAIRED, L2_AHEAD> under PDL.
template <int R, int J, int TILE, int STAGES, class Src, bool PACKED = false, bool PAIRED = false,
          bool L2_AHEAD = false>
void launch_fast_kernel(const char* op, const Src& src, const bf16* w, bf16* out, int rows, int64_t n, int64_t k,
                        cudaStream_t stream) {
  constexpr auto kernel = gemv_fast_kernel<R, J, TILE, STAGES, PACKED, Src, PAIRED, L2_AHEAD>;
  constexpr int shared = STAGES * kStageBytes<TILE, J>;
  const int64_t resident = int64_t{multiprocessors()} * resident_blocks<kernel, shared>();
  const int64_t columns = PAIRED ? n / 2 : n;
  const dim3 grid(static_cast<unsigned>(std::min(columns, resident)), static_cast<unsigned>((rows + R - 1) / R));
  launch_pdl(op, kernel, grid, dim3(kThreads), shared, stream, src, w, out, rows, n, k);
}

template <int R, int J, class Src, bool PAIRED = false, bool L2_AHEAD = false>
void launch_fast(const char* op, const Src& src, const bf16* w, bf16* out, int rows, int64_t n, int64_t k,
                 cudaStream_t stream) {
  constexpr int kTile = kTileRows<R, J>;
  launch_fast_kernel<R, J, kTile, kStages<R, kTile, J>, Src, false, PAIRED, L2_AHEAD>(op, src, w, out, rows, n, k,
                                                                                    stream);
}

// J = ceil(K / 2048) chunks per lane: up to kMaxJ (K <= kFastMaxK), and up to kMaxJNarrow where R <= 2.
template <int R, class Src, bool PAIRED = false, bool L2_AHEAD = false>
void launch_fast_r(const char* op, const Src& src, const bf16* w, bf16* out, int rows, int64_t n, int64_t k,
                   cudaStream_t stream) {
  const int64_t j = (k / kChunk + kThreads - 1) / kThreads;
  switch (j) {
    case 1: return launch_fast<R, 1, Src, PAIRED, L2_AHEAD>(op, src, w, out, rows, n, k, stream);
    case 2: return launch_fast<R, 2, Src, PAIRED, L2_AHEAD>(op, src, w, out, rows, n, k, stream);
    case 3: return launch_fast<R, 3, Src, PAIRED, L2_AHEAD>(op, src, w, out, rows, n, k, stream);
    case 4: return launch_fast<R, 4, Src, PAIRED, L2_AHEAD>(op, src, w, out, rows, n, k, stream);
    default: break;
  }
  if constexpr (R <= 2) {
    if (j == 5) return launch_fast<R, 5, Src, PAIRED, L2_AHEAD>(op, src, w, out, rows, n, k, stream);
    return launch_fast<R, 6, Src, PAIRED, L2_AHEAD>(op, src, w, out, rows, n, k, stream);
  }
}

// The packed form of the lone-block row (R <= 2, J = 6: the LM's down projection): with the activations packed the
// kernel takes 128 registers (ptxas, sm_90), so two blocks share a multiprocessor, each a 96 KiB ring of 1-row tiles
// (4 stages, 3 in flight): the same bytes in flight per multiprocessor as the lone block's (provider
// cuda.matmul_bt.gemv.packed; on the H200 the LM step 4.28 -> 4.20 ms at K/V 300, reports/bench/lm/GAP.md).
constexpr int64_t kPackedMinK = int64_t{5} * kWarps * 32 * kChunk;  // J = 6: K in (10240, 12288]
template <bool L2_AHEAD = false, class Src>
void gemv_bt_packed(const char* op, const Src& src, const bf16* w, bf16* out, int rows, int64_t n, int64_t k,
                    cudaStream_t stream) {
  constexpr int kTile = 1, kStagesPacked = 4;
  if (rows == 1)
    return launch_fast_kernel<1, 6, kTile, kStagesPacked, Src, true, false, L2_AHEAD>(op, src, w, out, rows, n, k,
                                                                                     stream);
  launch_fast_kernel<2, 6, kTile, kStagesPacked, Src, true, false, L2_AHEAD>(op, src, w, out, rows, n, k, stream);
}

// out[rows, n / 2] = silu_mul(gate, up) of the GEMV's gate rows [0, n / 2) and up rows [n / 2, n) of w (PAIRED above):
// the fast path's shapes only (rows <= 4, K % 8 == 0, K <= kFastMaxK, or kFastMaxKNarrow for rows <= 2, 16-byte
// aligned operands; n even), which the caller checks.
template <bool L2_AHEAD = false, class Src>
void gemv_bt_silu(const char* op, const Src& src, const bf16* w, bf16* out, int rows, int64_t n, int64_t k,
                  cudaStream_t stream) {
  if (rows == 1) return launch_fast_r<1, Src, true, L2_AHEAD>(op, src, w, out, rows, n, k, stream);
  if (rows == 2) return launch_fast_r<2, Src, true, L2_AHEAD>(op, src, w, out, rows, n, k, stream);
  launch_fast_r<4, Src, true, L2_AHEAD>(op, src, w, out, rows, n, k, stream);
}

template <int R, class Src>
void launch_fallback(const char* op, const Src& src, const bf16* w, bf16* out, int rows, int64_t n, int64_t k,
                     cudaStream_t stream) {
  const dim3 grid(static_cast<unsigned>(n), static_cast<unsigned>((rows + R - 1) / R));
  gemv_fallback_kernel<R, Src><<<grid, kThreads, 0, stream>>>(src, w, out, rows, n, k);
  check_launch(op);
}

// out[rows, n] = x . w^T for w [n, k] bf16 and x from `src`; `src_vectorizable` says that the
// source's rows allow 16-byte chunk loads (16-byte aligned, K % 8 == 0). Rows beyond 4 run in
// groups of 4 (grid.y), each group reading the weights again. L2_AHEAD: the fast path's L2 request (above).
template <bool L2_AHEAD = false, class Src>
void gemv_bt(const char* op, const Src& src, bool src_vectorizable, const bf16* w, bf16* out, int rows, int64_t n,
             int64_t k, cudaStream_t stream) {
  const bool fast = src_vectorizable && k % kChunk == 0 && k <= (rows <= 2 ? kFastMaxKNarrow : kFastMaxK) && aligned16(w);
  if (fast) {
    if (rows == 1) return launch_fast_r<1, Src, false, L2_AHEAD>(op, src, w, out, rows, n, k, stream);
    if (rows == 2) return launch_fast_r<2, Src, false, L2_AHEAD>(op, src, w, out, rows, n, k, stream);
    return launch_fast_r<4, Src, false, L2_AHEAD>(op, src, w, out, rows, n, k, stream);
  }
  if (rows == 1) return launch_fallback<1>(op, src, w, out, rows, n, k, stream);
  if (rows == 2) return launch_fallback<2>(op, src, w, out, rows, n, k, stream);
  return launch_fallback<4>(op, src, w, out, rows, n, k, stream);
}

}  // namespace music3::ops::gemv
