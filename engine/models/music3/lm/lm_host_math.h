// The Qwen3-specific host arithmetic, mirroring transformers' Qwen3 modules in bf16 on
// PyTorch's rounding points (the shared pieces, Linear/RMSNorm/SiLU/add, are
// runtime/host_math.h):
//  - RoPE "default": inv_freq[i] = f32(1 / f32(theta^(2i/D))), angle = f32(pos * inv_freq[i]),
//    cos/sin computed in f32 and rounded to bf16; half split: rotate_half(x)[i] =
//    -x[i + D/2] for i < D/2 and x[i - D/2] above; out = bf16(bf16(x * cos) +
//    bf16(rotate_half(x) * sin)) (three roundings, as the bf16 tensor expression);
//  - GQA attention: query head h reads K/V head h / (heads / kv_heads); softmax in f32
//    of scale * q.k, P rounded to bf16 before P.V, f32 accumulation, one rounding.
// Pure functions over caller-owned buffers: thread-safe.
#pragma once
#include <cstdint>
#include <vector>

#include "engine/core/bf16.h"

namespace music3::lm::host {

// The rotary table for positions [pos0, pos0 + T): cos and sin, bf16 [T, D] each.
struct RopeTable {
  int dim = 0;
  int positions = 0;
  std::vector<bf16> cos, sin;
};
RopeTable rope_table(double theta, int head_dim, int64_t pos0, int T);

// Rotates `rows` head vectors of width D in place; row r sits at table row
// (r / per_position) % T, T the table's positions (rows laid out [batch][token][head]).
void apply_rope(bf16* x, int64_t rows, int per_position, const RopeTable& table);

// One query token (all heads, [heads * D]) over cached keys/values [T, kv_heads * D].
void attend_gqa(const bf16* q, const bf16* k, const bf16* v, int T, int heads, int kv_heads, int D, float scale,
                bf16* out);

}  // namespace music3::lm::host
