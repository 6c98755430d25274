// The bodies of cuda.conv1d.narrow_staged (conv1d_narrow_staged.cu), host-and-device so that the cpu gate
// op_narrow_conv_host runs them block by block on the host.
// Shapes: channels-last x [B, Tin, Cin] with Cin % 8 == 0, out [B, Tout, Cout] with Cout <= 4 (the vocoder's
// conv_out, 96 -> 1, k 7), weights in any layout (read through conv_weight_offset). Block (x, b) takes the
// kTile output positions t0 = x kTile .. t0 + kTile - 1 of batch row b:
// - stage_weights(): the weights as f32 [Cout][K][Cin];
// - stage_rows(): input positions j0 = t0 - pad .. j0 + rows - 1 (rows = kTile + (K - 1) dilation; zero outside
//   [0, Tin): the padding) as they lie in x, [row][Cin], with 16-byte copies, each row padded by 8 values so that
//   the 16-byte reads of neighbouring threads (rows 1 apart) fall in different shared-memory banks;
// - output(): for output position t0 + i and channel co, acc = bias[co], then for k = 0 .. K - 1 and
//   ci = 0 .. Cin - 1 in that order acc = fma(w[co][k][ci], x[t0 + i + k dilation - pad][ci], acc), bf16(acc): the
//   order of cuda.conv1d's narrow kernel (conv1d_narrow.cu), so its bits, here read 8 channels per 16-byte access.
#pragma once
#include <cmath>
#include <cstdint>

#include "engine/core/bf16.h"
#include "engine/ops/cuda/bf16x8.cuh"
#include "engine/ops/vocoder_ops.h"

namespace music3::ops::narrow_conv {

constexpr int kTile = 128;       // output positions per block, one per thread
constexpr int kVec = 8;          // bf16 per 16-byte access
constexpr int kRowPad = kVec;    // values after each staged row (bank spread)
constexpr int kMaxStagedBytes = 48 * 1024;

struct Geometry {
  int cin, cout, taps, dilation, pad, t_in, t_out;
  ConvWeightLayout layout;
  MUSIC3_HD int rows() const { return kTile + (taps - 1) * dilation; }
  MUSIC3_HD int row_stride() const { return cin + kRowPad; }
  // Shared memory: the f32 weights, then the staged rows (16-byte aligned: Cout K Cin f32 is a multiple of 32 bytes).
  MUSIC3_HD size_t weight_bytes() const { return size_t(cout) * taps * cin * sizeof(float); }
  MUSIC3_HD size_t shared_bytes() const { return weight_bytes() + size_t(rows()) * row_stride() * sizeof(bf16); }
};

MUSIC3_HD float fma_rn(float a, float b, float c) {
#ifdef __CUDA_ARCH__
  return __fmaf_rn(a, b, c);
#else
  return std::fma(a, b, c);  // correctly rounded, as __fmaf_rn
#endif
}

MUSIC3_HD void stage_weights(const Geometry& g, const bf16* w, int thread, int threads, float* staged_w) {
  for (int i = thread; i < g.cout * g.taps * g.cin; i += threads) {
    const int co = i / (g.taps * g.cin), k = i / g.cin % g.taps, ci = i % g.cin;
    staged_w[i] = to_f32(w[conv_weight_offset(g.layout, g.taps, g.cout, g.cin, k, co, ci)]);
  }
}

MUSIC3_HD void stage_rows(const Geometry& g, const bf16* x, int64_t batch_row, int t0, int thread, int threads,
                          bf16* staged_x) {
  const int vectors = g.cin / kVec, j0 = t0 - g.pad;
  for (int i = thread; i < g.rows() * vectors; i += threads) {
    const int r = i / vectors, cv = i % vectors, j = j0 + r;
    Bf16x8 v{};
    if (j >= 0 && j < g.t_in) v = load_bf16x8(x + (batch_row * g.t_in + j) * g.cin + cv * kVec);
    store_bf16x8(staged_x + r * g.row_stride() + cv * kVec, v);
  }
}

// Output position t0 + i (i < kTile, t0 + i < Tout) of batch row `batch_row`, every channel.
MUSIC3_HD void output(const Geometry& g, const float* staged_w, const bf16* staged_x, const bf16* bias, bf16* out,
                      int64_t batch_row, int t0, int i) {
  for (int co = 0; co < g.cout; ++co) {
    float acc = to_f32(bias[co]);
    for (int k = 0; k < g.taps; ++k) {
      const bf16* xr = staged_x + (i + k * g.dilation) * g.row_stride();
      const float* wk = staged_w + (co * g.taps + k) * g.cin;
      for (int cv = 0; cv < g.cin / kVec; ++cv) {
        const Bf16x8 xv = load_bf16x8(xr + cv * kVec);
        for (int j = 0; j < kVec; ++j) acc = fma_rn(wk[cv * kVec + j], to_f32(xv.e[j]), acc);
      }
    }
    out[(batch_row * g.t_out + t0 + i) * g.cout + co] = to_bf16(acc);
  }
}

}  // namespace music3::ops::narrow_conv
