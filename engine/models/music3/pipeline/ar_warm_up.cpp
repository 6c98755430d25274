#include "engine/models/music3/pipeline/ar_warm_up.h"

#include <chrono>
#include <vector>

#include "engine/models/music3/tokenizer/prompt_ids.h"

namespace music3::pipeline {

double warm_up_ar(PipelineModels& m) {
  const auto t0 = std::chrono::steady_clock::now();
  const auto device = runtime::ArmKind::Device;
  if (m.ar().lm_arm_kind() != device && m.ar().depth().arm_kind() != device) return 0.0;
  const tokenizer::PromptIds ids = tokenizer::encode_prompt(m.tokenizer(), "warm-up", "warm-up");
  const std::vector<int32_t> text = tokenizer::both_rows(ids);
  ar::ArOptions once;
  once.max_frames = 1;
  once.ignore_eos = true;  // an <|audio_end|> would end the run with no frame, which run() refuses
  m.ar().run(text.data(), int(ids.cond.size()), once);
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
}

}  // namespace music3::pipeline
