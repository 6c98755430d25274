// The acoustic stage's host kernels, at PyTorch's CPU bf16 rounding points (torch 2.11 under the oracle's pins:
// one thread, ATEN_CPU_CAPABILITY=default, oneDNN off). Activations are row-major bf16.
// Contracts:
//  - linear: y[m,n] = bf16(dot(x[m], w[n]) + bias[n]): the dot in the engine's fixed order (engine/core/dot_bf16.h),
//    the bias (when given) added to the f32 sum before the one rounding (torch's addmm with beta = 1).
//  - conv_taps: a Conv1d with stride 1 and zero padding (kernel - 1) / 2 over x [in][T], w [out][in][kernel]:
//    torch's im2col GEMM, whose dot over l = ci * kernel + tap keeps four partial sums (l % 4, the tail into the
//    first, then summed in order), then adds the bias and rounds once.
//  - layer_norm: f32 mean and biased variance of the row, rstd = 1/sqrt(var + eps), y = bf16((x * rstd - mean *
//    rstd) * w + b).
//  - rope_tables: cos and sin [positions][rotary] of upstream's partial rotary embedding (f32 angles p * inv_freq,
//    inv_freq = 1 / theta^(2i / rotary), halves repeated), each rounded to bf16.
//  - apply_rope: per head, dims [0, rotary) become bf16(bf16(x * cos) + bf16(rotate_half(x) * sin)) with
//    rotate_half = [-x2, x1] within those dims; dims [rotary, head_dim) pass through.
//  - attention: non-causal softmax(q k^T * scale) v per head, as torch's CPU flash kernel: keys in blocks of 512,
//    scores in f32, a running max, P = exp(s - max) rounded to bf16 before P.V, the f32 accumulator rescaled by
//    exp(old max - new max) between blocks, the row sum over the unrounded P, out = bf16(acc * (1 / sum)).
// Every function is pure apart from its output, deterministic and independent of `threads` (0 = all cores).
#pragma once
#include <cstdint>
#include <vector>

#include "engine/core/bf16.h"

namespace music3::acoustic::host {

void linear(const bf16* x, int64_t M, const bf16* w, int64_t N, int64_t K, const bf16* bias, bf16* y, int threads);
void conv_taps(const bf16* x, int64_t in, int64_t T, const bf16* w, int64_t out, int kernel, const bf16* bias,
               bf16* y, int threads);
void layer_norm(const bf16* x, int64_t M, int64_t H, const bf16* w, const bf16* b, float eps, bf16* y);
void rope_tables(int64_t positions, int rotary, float theta, std::vector<bf16>& cos, std::vector<bf16>& sin);
void apply_rope(bf16* x, int64_t S, int heads, int head_dim, int rotary, const bf16* cos, const bf16* sin);
void attention(const bf16* q, const bf16* k, const bf16* v, int64_t S, int heads, int head_dim, float scale,
               bf16* out, int threads);

inline constexpr int64_t kAttentionKeyBlock = 512;  // torch's CPU flash kernel: kv_split_size

}  // namespace music3::acoustic::host
