// conv1d on CUDA for narrow outputs (Cout <= kNarrowMaxOut: the vocoder's conv_out, 96 -> 1, k 7), a direct kernel:
// the GEMM paths spend a K-pass GEMM with N = Cout = 1 (or a padded copy and 7 GEMMs) on what is one read of x.
// A block owns kTile consecutive output positions of one batch row: it stages the input positions they reach
// (kTile + (K - 1) dilation, zero outside [0, Tin): the padding) for every input channel in shared memory as bf16,
// and the weights as f32 [Cout][K][Cin], then thread t sums, for each output channel co,
//   acc = bias[co]; for k = 0 .. K - 1, for ci = 0 .. Cin - 1: acc = fmaf(w[co][k][ci], x[ci][t + k dilation], acc)
// and writes bf16(acc): the contract's f32 sum with one rounding (vocoder_ops.h), in this order. Either activation
// layout ([B, C, T] or [B, T, C]: only the staging's and the store's indexing differ), any weight layout (read
// through conv_weight_offset). Declines (returns false, nothing enqueued) wider outputs and shapes whose
// staging exceeds kMaxStagedBytes of shared memory.
#include "engine/ops/cuda/conv1d_narrow.h"

#include <climits>

#include "engine/core/bf16.h"
#include "engine/ops/cuda/launch.h"

namespace music3::ops {
namespace {

constexpr int kTile = 128;  // output positions per block, one per thread
constexpr int kMaxStagedBytes = 48 * 1024;

struct NarrowGeometry {
  int batch, cin, cout, taps, dilation, pad, t_in, t_out, rows;  // rows: staged input positions per block
  bool channels_last;
  ConvWeightLayout layout;
};

__global__ void __launch_bounds__(kTile)
    conv1d_narrow_kernel(const bf16* __restrict__ x, const bf16* __restrict__ w, const bf16* __restrict__ bias,
                         bf16* __restrict__ out, NarrowGeometry g) {
  extern __shared__ float staged_w[];  // [cout][taps][cin] f32, then the input [cin][rows] bf16
  bf16* staged_x = reinterpret_cast<bf16*>(staged_w + g.cout * g.taps * g.cin);
  const int b = blockIdx.y, t0 = blockIdx.x * kTile;
  const int weights = g.cout * g.taps * g.cin;
  for (int i = threadIdx.x; i < weights; i += kTile) {
    const int co = i / (g.taps * g.cin), k = i / g.cin % g.taps, ci = i % g.cin;
    staged_w[i] = to_f32(w[conv_weight_offset(g.layout, g.taps, g.cout, g.cin, k, co, ci)]);
  }
  const int j0 = t0 - g.pad;  // the input position of staged row 0
  const int staged = g.cin * g.rows;
  for (int i = threadIdx.x; i < staged; i += kTile) {
    // Consecutive i walk the innermost global axis: channels when channels-last, time otherwise (coalesced).
    const int ci = g.channels_last ? i % g.cin : i / g.rows, r = g.channels_last ? i / g.cin : i % g.rows;
    const int j = j0 + r;
    bf16 v{0};
    if (j >= 0 && j < g.t_in)
      v = g.channels_last ? x[(int64_t{b} * g.t_in + j) * g.cin + ci] : x[(int64_t{b} * g.cin + ci) * g.t_in + j];
    staged_x[ci * g.rows + r] = v;
  }
  __syncthreads();
  const int t = t0 + threadIdx.x;
  if (t >= g.t_out) return;
  for (int co = 0; co < g.cout; ++co) {
    float acc = to_f32(bias[co]);
    const float* wc = staged_w + co * g.taps * g.cin;
    for (int k = 0; k < g.taps; ++k) {
      const bf16* xk = staged_x + threadIdx.x + k * g.dilation;
      const float* wk = wc + k * g.cin;
      for (int ci = 0; ci < g.cin; ++ci) acc = __fmaf_rn(wk[ci], to_f32(xk[ci * g.rows]), acc);
    }
    const int64_t at =
        g.channels_last ? (int64_t{b} * g.t_out + t) * g.cout + co : (int64_t{b} * g.cout + co) * g.t_out + t;
    out[at] = to_bf16(acc);
  }
}

}  // namespace

bool conv1d_narrow(const Conv1dArgs& p, cudaStream_t stream) {
  const ActAxes act = act_axes(p.act);
  const ConvWeightAxes axes = conv_weight_axes(p.layout);
  const int64_t cout = p.w.shape[axes.out], cin = p.x.shape[act.channels], taps = p.w.shape[axes.taps];
  const int64_t t_in = p.x.shape[act.time], t_out = p.out.shape[act.time], batch = p.x.shape[0];
  if (cout > kNarrowMaxOut || t_in > INT_MAX / 2 || t_out > INT_MAX / 2 || batch > 65535) return false;
  const int64_t rows = kTile + (taps - 1) * p.dilation;
  const int64_t bytes = cout * taps * cin * int64_t{sizeof(float)} + cin * rows * int64_t{sizeof(bf16)};
  if (bytes > kMaxStagedBytes) return false;
  if (batch == 0 || t_out == 0) return true;
  const NarrowGeometry g{static_cast<int>(batch), static_cast<int>(cin),    static_cast<int>(cout),
                         static_cast<int>(taps),  p.dilation,               p.pad,
                         static_cast<int>(t_in),  static_cast<int>(t_out),  static_cast<int>(rows),
                         p.act == ActLayout::ChannelsLast, p.layout};
  const dim3 grid(static_cast<unsigned>((t_out + kTile - 1) / kTile), static_cast<unsigned>(batch));
  conv1d_narrow_kernel<<<grid, kTile, static_cast<size_t>(bytes), stream>>>(
      p.x.as<const bf16>(), p.w.as<const bf16>(), p.bias.as<const bf16>(), p.out.as<bf16>(), g);
  check_launch("conv1d (narrow)");
  return true;
}

}  // namespace music3::ops
