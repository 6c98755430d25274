// The language model's op entry points (Qwen3 attention block): the per-head q/k RMSNorm and
// RoPE from a bf16 table in one pass, GQA attention with a K/V cache, and the AR loop's sampler. Model code calls them with
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
//  lm_sample      the language model's CFG sampler over K sliced columns (lm_sample_rule.h runs it on the host;
//                 engine/models/music3/lm/lm_sampler.h states it as upstream's): c, u = f32 of the bf16 rows;
//                 g = u + (c - u) * cfg_scale; g = -inf where c < the cfg_top_k-th largest c (ties kept; NaN
//                 ranks above every number, as in torch.topk); guided_out = g; nan_to_num(g); keep g >= the
//                 top_k-th largest; softmax and renormalisation with sampler_algo.h's pieces and fixed tree over
//                 tree_size(K) slots; column = argmax_i score(p_i, E_i) (draw_score, draw_beats); probs_out = p.
//                 E: `draws` f32 [K] when given, else exp1_draw(seed, iteration, draw_step, id(col)) with
//                 id(0) = first_id, id(c) = next_id + c - 1. nonfinite[0] (a u32 count in an i32 tensor) grows by
//                 the non-finite raw logits of both rows. Every provider gives the same bits (column, guided,
//                 probs; a NaN's payload is the platform's): the rule is a fixed sequence of f32 operations
//  feedback_embedding  the AR loop's embedding of a frame fed back to the LM, both rows of out [2, H] alike:
//                 element i = feedback_element(semantic[column[0], i], audio, codes, S, A, H, i, scale)
//                 (feedback_rule.h); semantic [R, H] is indexed by the LM sampler's column (the caller stages
//                 the rows so that row c is column c's embedding), codes i32 [S] are c1..cS, audio [S A, H].
//                 Rows of `semantic` or codes out of range: the CPU provider throws std::out_of_range, the CUDA
//                 provider clamps the row (the caller discards such a frame: an <|audio_end|> column)
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

struct LmSampleArgs {
  Tensor logits;      // bf16 [2, K]: row 0 conditional, row 1 unconditional
  Tensor draws;       // f32 [K], or empty (data == nullptr): generated
  Tensor column_out;  // i32 [1]: the sampled column
  Tensor nonfinite;   // i32 [1]: incremented
  Tensor guided_out, probs_out;  // f32 [K] each, or empty: not written
  uint64_t seed = 0, iteration = 0;
  uint32_t draw_step = 0;
  int32_t first_id = 0, next_id = 0;
  float cfg_scale = 1.0f;
  int cfg_top_k = 1, top_k = 1;
};

struct FeedbackEmbeddingArgs {
  Tensor semantic;  // bf16 [R, H]
  Tensor column;    // i32 [1]: the row of `semantic`
  Tensor audio;     // bf16 [S A, H]
  Tensor codes;     // i32 [S]
  Tensor out;       // bf16 [2, H]
  int64_t audio_vocab = 0;
  float scale = 1.0f;
};

void gqa_attention(const Queue& q, const GqaAttentionArgs& args);
void feedback_embedding(const Queue& q, const FeedbackEmbeddingArgs& args);
void lm_sample(const Queue& q, const LmSampleArgs& args);
void qk_norm_rope(const Queue& q, const QkNormRopeArgs& args);

}  // namespace music3::ops
