// The AR loop's feedback embedding of one frame, element by element: the one rule the host loop
// (ar::feedback_embedding) and every provider of the op feedback_embedding (lm_ops.h) evaluate, so all give the
// same bits. Element i of the embedding fed back for a frame whose codes are c0 (semantic) and c1..cS (depth):
//   extra = sum_{k=1..S} f32(audio[(c_k + (k - 1) A) H + i]) in f32, in increasing k (torch's bf16 sum over the S
//   rows: f32 accumulation, one rounding); out = bf16( bf16( f32(semantic_i) + bf16(extra) ) * scale ), scale =
//   (S + 1)^-0.5 as the caller computes it (one rounding for the sum, one for the add, one for the scale).
// Pure functions: thread-safe.
#pragma once
#include <cstdint>

#include "engine/core/bf16.h"

namespace music3::ops {

// depth_codes: c1..cS; audio: [S A, H]; semantic: the semantic code's embedding element i.
MUSIC3_HD bf16 feedback_element(bf16 semantic, const bf16* audio, const int32_t* depth_codes, int steps,
                                int64_t audio_vocab, int64_t hidden, int64_t i, float scale) {
  float extra = 0;
  for (int k = 0; k < steps; ++k)
    extra += to_f32(audio[(int64_t(depth_codes[k]) + int64_t(k) * audio_vocab) * hidden + i]);
  const float summed = round_bf16(to_f32(semantic) + round_bf16(extra));
  return to_bf16(summed * scale);
}

}  // namespace music3::ops
