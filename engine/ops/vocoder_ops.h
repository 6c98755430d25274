// The vocoder's op entry points (conv as GEMM, transposed conv, Snake, tanh). Model code calls them with a
// Queue; the registry picks the provider for the queue's device. Every tensor lives on the queue's device and
// is bf16 unless stated. Each entry point validates dtypes, ranks and shapes and throws std::invalid_argument
// naming the op and argument before any provider runs.
//
// Numerics (the contracts every provider must meet; torch's CPU bf16 rounding points):
//  conv1d            out[b,co,t] = bf16( bias[co] + sum_{ci,k} w[k,co,ci] * x[b,ci,t + k*dilation - pad] ), f32
//                    sum, one rounding; x outside [0,T) is 0. Weights in `layout`: TapMajor [K, Cout, Cin] (each
//                    tap one GEMM: the cuBLAS provider), OutInTap, torch's [Cout, Cin, K] (the cuDNN provider), or
//                    OutTapIn [Cout, K, Cin] (CUTLASS's KRSC filter with R = 1: the implicit-GEMM provider; cuBLAS
//                    reads it too); a provider's supports() takes the layouts it reads, and
//                    preferred_conv1d_layout(q) is the layout of the highest-priority enabled provider on q's device
//                    (ties: the earlier layout of that list), the one to stage weights in.
//                    Scratch: xpad bf16 [B, Cin, T + 2 pad] and acc f32 [B, Cout, Tout] (any contents; providers
//                    may leave garbage there). Tout = T + 2 pad - dilation (K - 1).
//                    Activations in `act`: ChannelsFirst [B, C, T] (x, xpad, acc, out as above) or ChannelsLast
//                    [B, T, C] (x [B, T, Cin], xpad [B, T + 2 pad, Cin], acc and out [B, Tout, Cout]); the same
//                    values either way (only the memory order differs). A provider's supports() says which it takes.
//                    Epilogue (optional; absent when residual has no data): residual (out's shape, disjoint from
//                    out) makes out = bf16(conv + residual) (the rounded conv plus it, rounded once more). A provider
//                    that takes a call with the residual adds it in its own kernel (supports() of every other
//                    provider declines such calls: conv1d_is_plain); when none does, the entry runs the conv, then
//                    the separate add in place on out: the same bits either way.
//  conv_transpose1d  cols[b, co*K + k, l] = bf16( sum_ci w[ci,co,k] * x[b,ci,l] ) (f32 sum, one rounding: torch's
//                    GEMM column); out[b,co,t] = bf16(acc + bias[co]) where acc starts at bf16 0 and adds, in
//                    ascending k, each cols[b, co*K + k, l] with l*stride + k = t + pad, rounding every addition
//                    (torch's col2im). Weights in torch's layout [Cin, Cout, K]. Scratch: cols bf16 [B, Cout*K, L].
//                    Lout = (L - 1) stride - 2 pad + K. ChannelsLast: x [B, L, Cin], cols [B, L, Cout*K], out
//                    [B, Lout, Cout], the same values.
//  snake             out = x + bf16(1/bf16(alpha + 1e-9)) * sin(alpha x)^2 per channel, each of the six ops rounded
//                    to bf16; out may be the very view of x. x and out [B, C, T], or [B, T, C] for ChannelsLast.
//  tanh              out = bf16(tanh(x)); out may be the very view of x.
#pragma once
#include <cstdint>

#include "engine/core/bf16.h"  // MUSIC3_HD
#include "engine/core/queue.h"
#include "engine/core/tensor.h"

namespace music3::ops {

enum class ConvWeightLayout : uint8_t { TapMajor, OutInTap, OutTapIn };
inline constexpr ConvWeightLayout kConvWeightLayouts[] = {ConvWeightLayout::TapMajor, ConvWeightLayout::OutInTap,
                                                          ConvWeightLayout::OutTapIn};
const char* conv_weight_layout_name(ConvWeightLayout layout);  // "tap_major", "out_in_tap", "out_tap_in"
// The axes of a conv1d weight in `layout` that hold the taps K, Cout and Cin.
struct ConvWeightAxes {
  int taps, out, in;
};
ConvWeightAxes conv_weight_axes(ConvWeightLayout layout);
Shape conv_weight_shape(ConvWeightLayout layout, int64_t taps, int64_t cout, int64_t cin);
// The offset of w[tap k][out co][in ci] in a weight of `layout` with those extents (host and device code).
MUSIC3_HD int64_t conv_weight_offset(ConvWeightLayout layout, int64_t taps, int64_t cout, int64_t cin, int64_t k,
                                  int64_t co, int64_t ci) {
  switch (layout) {
    case ConvWeightLayout::OutInTap: return (co * cin + ci) * taps + k;
    case ConvWeightLayout::OutTapIn: return (co * taps + k) * cin + ci;
    case ConvWeightLayout::TapMajor: break;
  }
  return (k * cout + co) * cin + ci;
}
// The memory order of the activations: [B, C, T] or [B, T, C].
enum class ActLayout : uint8_t { ChannelsFirst, ChannelsLast };
inline constexpr ActLayout kActLayouts[] = {ActLayout::ChannelsFirst, ActLayout::ChannelsLast};
const char* act_layout_name(ActLayout act);  // "channels_first", "channels_last"
// The axes of a rank-3 activation in `act` that hold the channels and the time.
struct ActAxes {
  int channels, time;
};
inline ActAxes act_axes(ActLayout act) { return act == ActLayout::ChannelsLast ? ActAxes{2, 1} : ActAxes{1, 2}; }
inline Shape act_shape(ActLayout act, int64_t batch, int64_t channels, int64_t time) {
  return act == ActLayout::ChannelsLast ? Shape{batch, time, channels} : Shape{batch, channels, time};
}
struct Conv1dArgs {
  Tensor x, w, bias, xpad, acc, out;
  int dilation, pad;
  ConvWeightLayout layout = ConvWeightLayout::TapMajor;
  ActLayout act = ActLayout::ChannelsFirst;
  Tensor residual{};  // the optional epilogue (see conv1d above)
};
// No residual asked: what a provider that does not fuse it takes.
inline bool conv1d_is_plain(const Conv1dArgs& a) { return !a.residual.data; }
struct ConvTranspose1dArgs {
  Tensor x, w, bias, cols, out;
  int stride, pad;
  ActLayout act = ActLayout::ChannelsFirst;
};
struct SnakeArgs {
  Tensor x, alpha, out;
  ActLayout act = ActLayout::ChannelsFirst;
};
struct TanhArgs {
  Tensor x, out;
};

void conv1d(const Queue& q, const Conv1dArgs& args);
ConvWeightLayout preferred_conv1d_layout(const Queue& q);  // throws MissingProvider when none is enabled
void conv_transpose1d(const Queue& q, const ConvTranspose1dArgs& args);
void snake(const Queue& q, const Tensor& x, const Tensor& alpha, const Tensor& out,
           ActLayout act = ActLayout::ChannelsFirst);
void tanh(const Queue& q, const Tensor& x, const Tensor& out);

}  // namespace music3::ops
