// The language model's op entry points (Qwen3 attention block): the per-head RMSNorm,
// RoPE from a bf16 table, and GQA attention with a K/V cache. Model code calls them with
// a Queue; the registry picks the provider for the queue's device. Every tensor lives on
// the queue's device and is bf16 unless stated. Each entry point validates dtypes, ranks
// and shapes and throws std::invalid_argument naming the op and argument before any
// provider runs.
//
// Positions come from `pos`, an i32 [1] tensor on the device (so one captured graph
// serves every decode step): row r of `x`/`qkv` is token r / B at position pos[0] + r / B,
// rows laid out [token][batch]. The caller keeps pos[0] + T within the table/cache (the
// CPU providers throw std::out_of_range past it; the CUDA providers leave such rows
// untouched).
//
// Numerics (the contracts every provider must meet; transformers' Qwen3 rounding points):
//  head_rms_norm  in place on heads [first, first + count) of width D of every row of x:
//                 rms_norm's formula (ops.h) over each head with weight w [D]
//  rope           in place on heads [0, count) of every row of x, heads head_dim apart (head_dim 0: D, the
//                 table's width), the first D dims of each head rotated at position p (partial rotary when
//                 head_dim > D; the rest pass through):
//                 out[i] = bf16( bf16(x[i] * cos[p, i]) + bf16(rot[i] * sin[p, i]) ), rot[i] =
//                 -x[i + D/2] below D/2, x[i - D/2] above (the half split within the D dims); cos/sin bf16 [P, D]
//  qk_norm_rope   head_rms_norm of the q heads [0, heads) of every row of x with q_norm, of the k heads
//                 [heads, heads + kv_heads) with k_norm (heads D = q_norm's width apart), then rope of heads
//                 [0, heads + kv_heads) (head_dim D, the table's width <= D), in that order: the same bits
//                 as the three calls, in one pass (the decode step's launches)
//  gqa_attention  qkv [T*B, (nH + 2 nKV) D] = q | k | v heads; caches [B, Tmax, nKV D]. For every
//                 token t: k and v of row t*B + b stored at cache row pos + t of batch b, then
//                 query head h of row t*B + b attends positions 0 .. pos + t (causal) of K/V head
//                 h / (nH / nKV) with attention_decode's arithmetic (ops.h): f32 softmax of
//                 scale * q.k, unnormalised P rounded to bf16 before P.V, f32 sums, out bf16
//                 [T*B, nH D]. Providers may split the positions into chunks, each with its own
//                 max (the band, not the bits, is the contract across providers).
// Thread-safety: as ops.h.
#pragma once
#include <cstdint>

#include "engine/core/queue.h"
#include "engine/core/tensor.h"

namespace music3::ops {

struct HeadRmsNormArgs {
  Tensor x, w;  // x [M, W] (in place), w [D]
  int first, count;
  float eps;
};
struct RopeArgs {
  Tensor x, cos, sin, pos;  // x [T*B, W] (in place), cos/sin [P, D], pos i32 [1]
  int count, batch;
  int head_dim;  // the heads' stride in x (>= D), resolved by the entry point
};
struct QkNormRopeArgs {
  Tensor x, q_norm, k_norm, cos, sin, pos;  // x [T*B, W] (in place), norms [D], cos/sin [P, <= D], pos i32 [1]
  int heads, kv_heads, batch;
  float eps;
};
// Positions per chunk of the split (flash-decoding) attention; scratch holds one
// (m, l, acc[D]) record per (row b, query head, chunk) of a decode step.
inline constexpr int kGqaChunk = 32;
inline int64_t gqa_chunks(int64_t tmax) { return (tmax + kGqaChunk - 1) / kGqaChunk; }

struct GqaAttentionArgs {
  Tensor qkv, k_cache, v_cache, pos, out;
  Tensor scratch;  // f32 [B * heads, gqa_chunks(Tmax), D + 2]: any contents, left as garbage
  int heads, kv_heads;
  float scale;
};

void head_rms_norm(const Queue& q, const Tensor& x, const Tensor& w, int first, int count, float eps);
void rope(const Queue& q, const Tensor& x, const Tensor& cos, const Tensor& sin, const Tensor& pos, int count,
          int batch, int head_dim = 0);
void gqa_attention(const Queue& q, const GqaAttentionArgs& args);
void qk_norm_rope(const Queue& q, const QkNormRopeArgs& args);

}  // namespace music3::ops
