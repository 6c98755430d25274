#include "engine/models/music3/tokenizer/prompt_ids.h"

#include "engine/models/music3/tokenizer/prompt_rules.h"
#include "engine/models/music3/tokenizer/python_text.h"
#include "engine/models/music3/tokenizer/tokenizer_error.h"
#include "engine/models/music3/tokenizer/utf8.h"

namespace music3::tokenizer {

namespace {
constexpr const char* kTemplateTokens[] = {"<|im_start|>",   "<|caption_start|>", "<|caption_end|>", "<|lyrics_start|>",
                                           "<|lyrics_end|>", "<|im_end|>",        "<|audio_start|>"};
}  // namespace

void check_template_tokens(const Qwen2Tokenizer& tok) {
  for (const char* t : kTemplateTokens)
    if (!tok.added_token_id(t))
      throw TokenizerError(TokenizerErrorKind::kMissingSpecialToken,
                           std::string("the tokenizer has no added token ") + t + " (the prompt template needs it)");
  const auto end = tok.added_token_id("<|audio_end|>");
  if (end != kAudioEndTokenId)
    throw TokenizerError(TokenizerErrorKind::kMissingSpecialToken,
                         "<|audio_end|> must be the added token " + std::to_string(kAudioEndTokenId) +
                             " (the pipeline's stop id), got " + (end ? std::to_string(*end) : std::string("none")));
  try {
    tok.piece(kAudioCfgTokenId);
  } catch (const TokenizerError&) {
    throw TokenizerError(TokenizerErrorKind::kMissingSpecialToken,
                         "the tokenizer has no token " + std::to_string(kAudioCfgTokenId) + " (the CFG filler)");
  }
}

std::string assemble_prompt(std::string_view prompt, std::string_view lyrics) {
  return "<|im_start|><|caption_start|>" + clean_caption(prompt) + "<|caption_end|><|lyrics_start|>" +
         normalize_lyrics(lyrics) + "<|lyrics_end|><|im_end|><|audio_start|>";
}

std::vector<uint32_t> cfg_row(const std::vector<uint32_t>& cond) {
  std::vector<uint32_t> row = cond;
  for (size_t i = 1; i + 2 < row.size(); ++i) row[i] = kAudioCfgTokenId;
  return row;
}

PromptIds encode_prompt(Qwen2Tokenizer& tok, std::string_view prompt, std::string_view lyrics) {
  require_valid_utf8(prompt, "the prompt");
  require_valid_utf8(lyrics, "the lyrics");
  if (python_strip(prompt).empty())
    throw TokenizerError(TokenizerErrorKind::kEmptyPrompt, "the prompt (the music description) is empty or only whitespace");
  if (python_strip(lyrics).empty())
    throw TokenizerError(TokenizerErrorKind::kEmptyLyrics, "the lyrics are empty or only whitespace");
  PromptIds out;
  out.text = assemble_prompt(prompt, lyrics);
  out.cond = tok.encode(out.text);
  if (out.cond.size() > kMaxPromptTokens)
    throw TokenizerError(TokenizerErrorKind::kPromptTooLong, "the assembled prompt has " + std::to_string(out.cond.size()) +
                                                                 " tokens; the maximum is " + std::to_string(kMaxPromptTokens));
  out.uncond = cfg_row(out.cond);
  return out;
}

std::vector<int32_t> both_rows(const PromptIds& ids) {
  std::vector<int32_t> rows(ids.cond.begin(), ids.cond.end());
  rows.insert(rows.end(), ids.uncond.begin(), ids.uncond.end());
  return rows;
}

}  // namespace music3::tokenizer
