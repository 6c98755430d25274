// The vocoder's host kernels, at PyTorch's CPU bf16 rounding points (measured against torch 2.11 under the
// oracle's pins). Activations are one stream, [channels][time] row-major bf16.
// Contracts:
//  - conv1d: Conv1d with stride 1, dilation d and padding pad; every output is one bf16 rounding of the f32 sum
//    of bias and products (torch's im2col GEMM).
//  - conv_transpose1d: ConvTranspose1d with stride s and padding p; per tap, the f32 sum over input channels is
//    rounded to bf16 (torch's GEMM column), columns are added into a zero bf16 output in tap order, each addition
//    rounded (col2im), then bias is added with one more rounding. Output length (T-1)s - 2p + kernel.
//  - snake: x + (1/(alpha + 1e-9)) * sin(alpha x)^2, each of its six ops rounded to bf16.
//  - tanh_inplace: bf16(tanh(x)). add_inplace: bf16(x + y).
// Every function is pure apart from its output, deterministic and independent of `threads` (0 = all cores).
#pragma once
#include <cstdint>
#include <vector>

#include "engine/core/bf16.h"
#include "engine/models/music3/vocoder/vocoder_weights.h"

namespace music3::vocoder {

struct Activation {
  int channels = 0;
  int64_t time = 0;
  std::vector<bf16> data;  // [channels][time]
};

Activation conv1d(const Activation& x, const Conv& c, int dilation, int pad, int threads);
Activation conv_transpose1d(const Activation& x, const Conv& c, int stride, int pad, int threads);
void snake_inplace(Activation& x, const std::vector<bf16>& alpha, int threads);
void tanh_inplace(Activation& x);
void add_inplace(Activation& x, const Activation& y);

}  // namespace music3::vocoder
