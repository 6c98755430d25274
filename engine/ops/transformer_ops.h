// Op entry points of a non-causal transformer over token rows (a DiT): LayerNorm with affine (optionally fused
// with the residual add before it), non-causal multi-head self-attention over a fused q|k|v row, and placing a
// block of rows into a wider buffer. Model code calls them with a Queue; the registry picks the provider for the
// queue's device. Every tensor lives on the queue's device and is bf16. Each entry point validates ranks, shapes
// and aliasing and throws std::invalid_argument naming the op and argument before any provider runs.
//
// Numerics (the contracts every provider must meet; torch's bf16 rounding points):
//  layer_norm      a_out[m,:] = bf16( (h * rstd + (-mean * rstd)) * w + b ) over each row h of x, mean and the
//                  biased variance in f32, rstd = 1 / sqrt(var + eps) (providers may order the sums differently:
//                  the band, not the bits, is the contract across providers)
//  add_layer_norm  h_out = bf16(x + r), then layer_norm(h_out) into a_out; h_out may be the very view of x
//  self_attention  qkv [S*B, 3 H D] rows [token][batch], q | k | v heads of width D; every query of batch b
//                  attends every key of batch b (non-causal): f32 scores scale * q.k, softmax with a running max
//                  (keys in tiles, each tile rescaling the f32 accumulator by exp(old max - new max)), the
//                  unnormalised P = exp(s - max) rounded to bf16 before P.V, the row sum over the unrounded P, out
//                  [S*B, H D] = bf16(acc / sum); with rotary tables cos/sin bf16 [P, R] (R even, R <= D, P >= S)
//                  every q and k head is first rotated by qk_norm_rope's rotation (lm_ops.h: the first R dims, the
//                  half split within them, the same roundings) at the position of its token (0 .. S - 1) (the fused
//                  form of that rotation over the 2 H q|k heads from position 0, then self_attention); with
//                  QkvAfter::kept qkv is not written, with QkvAfter::scratch a provider may rotate q and k in place
//                  (afterwards each q|k element holds its input or its rotation; v is never written)
//  place_rows      out[row0 + i * row_step, col0 + j] = src[i, j]; every other element of out untouched
// Thread-safety: as ops.h.
#pragma once
#include <cstdint>

#include "engine/core/queue.h"
#include "engine/core/tensor.h"

namespace music3::ops {

struct LayerNormArgs {
  Tensor x, r, w, b, h_out, a_out;  // r, h_out: data == nullptr when there is no residual add
  float eps;
};
// What self_attention's rotary form may do to qkv: `scratch` when nothing reads it afterwards (the DiT's block), so
// a provider may rotate in place instead of into a copy (cuda.self_attention.cudnn: half the bytes moved).
enum class QkvAfter { kept, scratch };

struct SelfAttentionArgs {
  Tensor qkv, out;
  int heads, batch;
  float scale;
  Tensor cos, sin;  // the rotary tables; data == nullptr for none
  QkvAfter qkv_after;
};
struct PlaceRowsArgs {
  Tensor src, out;
  int64_t row0, row_step, col0;
};

void layer_norm(const Queue& q, const Tensor& x, const Tensor& w, const Tensor& b, float eps, const Tensor& out);
void add_layer_norm(const Queue& q, const Tensor& x, const Tensor& r, const Tensor& w, const Tensor& b, float eps,
                    const Tensor& h_out, const Tensor& a_out);
void self_attention(const Queue& q, const Tensor& qkv, int heads, int batch, float scale, const Tensor& out,
                    const Tensor& cos = {}, const Tensor& sin = {}, QkvAfter qkv_after = QkvAfter::kept);
void place_rows(const Queue& q, const Tensor& src, const Tensor& out, int64_t row0, int64_t row_step, int64_t col0);

}  // namespace music3::ops
