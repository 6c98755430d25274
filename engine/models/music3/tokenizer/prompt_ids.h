// The language model's text input: diffusers 0.42.1's MiniMaxMusic3TokenizeStep.
// Contract: encode_prompt refuses invalid UTF-8 (kInvalidUtf8) and a prompt or lyrics
// that is empty or only whitespace (str.strip(); kEmptyPrompt / kEmptyLyrics), assembles
//   <|im_start|><|caption_start|>{clean_caption(prompt)}<|caption_end|><|lyrics_start|>
//   {normalize_lyrics(lyrics)}<|lyrics_end|><|im_end|><|audio_start|>
// with nothing between the pieces, tokenizes it (no BOS/EOS), refuses more than
// kMaxPromptTokens ids (kPromptTooLong, naming the count), and makes the CFG row: a copy
// with positions 1 .. P-3 set to kAudioCfgTokenId. check_template_tokens refuses a
// tokenizer lacking a template token, the audio-end token at kAudioEndTokenId, or any
// token at kAudioCfgTokenId (kMissingSpecialToken, naming it).
// Thread-safety: pure functions of a const tokenizer: thread-safe.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "engine/models/music3/tokenizer/qwen2_tokenizer.h"

namespace music3::tokenizer {

inline constexpr size_t kMaxPromptTokens = 5000;
inline constexpr uint32_t kAudioCfgTokenId = 151654;
inline constexpr uint32_t kAudioEndTokenId = 151670;

struct PromptIds {
  std::string text;              // the assembled template string
  std::vector<uint32_t> cond;    // row 0
  std::vector<uint32_t> uncond;  // row 1 (CFG)
};

void check_template_tokens(const Qwen2Tokenizer& tok);
std::string assemble_prompt(std::string_view prompt, std::string_view lyrics);
std::vector<uint32_t> cfg_row(const std::vector<uint32_t>& cond);
PromptIds encode_prompt(Qwen2Tokenizer& tok, std::string_view prompt, std::string_view lyrics);
// Both rows as the AR stage takes them: [2][P] int32, cond then uncond.
std::vector<int32_t> both_rows(const PromptIds& ids);

}  // namespace music3::tokenizer
