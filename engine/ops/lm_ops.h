// The language model's op entry points (Qwen3 attention block): the per-head q/k RMSNorm and
// RoPE from a bf16 table in one pass, and GQA attention with a K/V cache. Model code calls them with
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
//  qk_norm_rope   in place on every row of x, whose heads lie D = q_norm's width apart: the q heads [0, heads)
//                 normed with q_norm, the k heads [heads, heads + kv_heads) with k_norm, each by rms_norm's
//                 formula (ops.h) over the head: n = bf16( bf16(x * r) * w ), r = 1 / sqrt(sum(x^2) / D + eps);
//                 then (the rope) every q and k head rotated at position p over its first R dims (R = the
//                 table's width, even, <= D; partial rotary when R < D, the other dims keep n):
//                 out[i] = bf16( bf16(n[i] * cos[p, i]) + bf16(rot[i] * sin[p, i]) ), rot[i] =
//                 -n[i + R/2] below R/2, n[i - R/2] above (the half split within the R dims); cos/sin bf16 [P, R].
//                 The v heads are untouched. One pass: the decode step's launches. The norm's sum may be
//                 ordered differently per provider (the band, not the bits, across providers); the rotation's
//                 roundings are fixed, so given the same n every provider gives the same bits
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

void gqa_attention(const Queue& q, const GqaAttentionArgs& args);
void qk_norm_rope(const Queue& q, const QkNormRopeArgs& args);

}  // namespace music3::ops
