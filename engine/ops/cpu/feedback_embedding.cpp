// feedback_embedding on the CPU: feedback_rule.h's element for every i, on the calling thread; rows out of range
// are refused (std::out_of_range naming the op).
#include <stdexcept>
#include <string>

#include "engine/ops/cpu/cpu_providers.h"
#include "engine/ops/feedback_rule.h"
#include "engine/ops/lm_ops.h"

namespace music3::ops {

void feedback_embedding_cpu(const Queue&, const void* args) {
  const auto& p = *static_cast<const FeedbackEmbeddingArgs*>(args);
  const int64_t H = p.semantic.shape[1], rows = p.semantic.shape[0];
  const int S = static_cast<int>(p.codes.shape[0]);
  const int32_t column = p.column.as<const int32_t>()[0];
  const int32_t* codes = p.codes.as<const int32_t>();
  if (column < 0 || column >= rows)
    throw std::out_of_range("feedback_embedding: column " + std::to_string(column) + " outside the " +
                            std::to_string(rows) + " rows of 'semantic'");
  for (int k = 0; k < S; ++k)
    if (codes[k] < 0 || codes[k] >= p.audio_vocab)
      throw std::out_of_range("feedback_embedding: code " + std::to_string(codes[k]) + " at " + std::to_string(k) +
                              " outside [0, " + std::to_string(p.audio_vocab) + ")");
  const bf16* semantic = p.semantic.as<const bf16>() + column * H;
  bf16* out = p.out.as<bf16>();
  for (int64_t i = 0; i < H; ++i)
    out[i] = out[H + i] =
        feedback_element(semantic[i], p.audio.as<const bf16>(), codes, S, p.audio_vocab, H, i, p.scale);
}

}  // namespace music3::ops
