// The token ids the AR stage hard-codes (diffusers' encoders.py constants) and the
// sliced vocabulary: the only LM ids the pipeline can ever sample are <|audio_end|>
// (151670) and the 16,384 semantic codes (151675 ... 168058). The engine computes the
// lm_head at those K = 16,385 ids only; column 0 is id 151670 and column 1 + j is id
// 151675 + j (code j). Every other id's logit is -inf upstream, so leaving it out is
// exact. Constants and pure functions: thread-safe.
#pragma once
#include <cstdint>

namespace music3::lm {

constexpr int32_t kAudioEndId = 151670;    // _AUDIO_END_TOKEN_ID: EOS of the AR loop
constexpr int32_t kAudioCfgId = 151654;    // _AUDIO_CFG_TOKEN_ID: the CFG row's filler
constexpr int32_t kCodeOffset = 151675;    // _AUDIO_CODE_OFFSET: id of semantic code 0
constexpr int32_t kSemanticVocab = 16384;  // _SEMANTIC_VOCAB_SIZE
constexpr int kSampledColumns = 1 + kSemanticVocab;             // K = 16,385
constexpr int64_t kMinVocab = int64_t(kCodeOffset) + kSemanticVocab;  // 168,059
constexpr int kMaxFrames = 9000;           // _MAX_AUDIO_FRAMES
constexpr int kMaxPromptTokens = 5000;     // _MAX_PROMPT_TOKENS
constexpr double kFrameRate = 25.0;        // 24000 / 960
constexpr float kCfgScale = 1.5f;          // _AR_CFG_SCALE
constexpr int kCfgTopK = 50;               // _AR_CFG_TOP_K: the conditional row's pre-filter
constexpr int kTopK = 50;                  // _AR_SAMPLING_TOP_K

// The LM id of sliced column `col` (0 <= col < K).
constexpr int32_t column_id(int col) { return col == 0 ? kAudioEndId : kCodeOffset + col - 1; }

}  // namespace music3::lm
