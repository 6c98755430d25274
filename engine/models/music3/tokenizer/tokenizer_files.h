// Reads the diffusers layout's `tokenizer/tokenizer.json` and `tokenizer_config.json`
// the way transformers 5.17's Qwen2Tokenizer.from_pretrained does.
// Contract:
//  - Only the BPE vocabulary and merges are taken from tokenizer.json. Its normalizer,
//    pre-tokenizer, decoder and BPE options are ignored, because Qwen2Tokenizer rebuilds
//    them from the class (NFC, the Qwen2 split pattern, byte-level, no dropout/unk).
//  - Added tokens come from tokenizer_config.json's `added_tokens_decoder` when it has
//    one (transformers' precedence), otherwise from tokenizer.json's `added_tokens`.
//    Only lstrip = rstrip = single_word = normalized = false is implemented; any other
//    flag, `add_prefix_space`, `split_special_tokens`, `add_bos_token`/`add_eos_token`
//    true or a tokenizer_class other than Qwen2Tokenizer is refused (kUnsupported).
//  - Every refusal is a TokenizerError naming the file and the JSON field (kCorruptFile,
//    kUnreadableFile, kUnsupported). Merges are checked against the vocabulary when the
//    tokenizer is built (Qwen2Tokenizer), not here.
// Thread-safety: no shared state: thread-safe.
#pragma once
#include <cstdint>
#include <filesystem>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

namespace music3::tokenizer {

struct AddedToken {
  std::string content;
  uint32_t id = 0;
  bool special = false;
};

struct TokenizerFiles {
  std::string origin;  // the tokenizer.json path (or a label), for messages
  std::unordered_map<std::string, uint32_t> vocab;
  std::vector<std::pair<std::string, std::string>> merges;  // in rank order
  std::vector<AddedToken> added;
};

// `text` is tokenizer.json's content; `origin` names it in messages.
TokenizerFiles parse_tokenizer_json(std::string_view text, const std::string& origin);
// Applies tokenizer_config.json (`text`, named `origin`) to `files`.
void apply_tokenizer_config(std::string_view text, const std::string& origin, TokenizerFiles& files);
// `dir` is a pipeline root holding tokenizer/ or the tokenizer folder itself.
TokenizerFiles read_tokenizer_folder(const std::filesystem::path& dir);

}  // namespace music3::tokenizer
