#include "engine/models/music3/tokenizer/tokenizer_error.h"

namespace music3::tokenizer {

const char* to_string(TokenizerErrorKind kind) {
  switch (kind) {
    case TokenizerErrorKind::kUnreadableFile: return "unreadable_file";
    case TokenizerErrorKind::kCorruptFile: return "corrupt_file";
    case TokenizerErrorKind::kUnknownMergePiece: return "unknown_merge_piece";
    case TokenizerErrorKind::kUnsupported: return "unsupported";
    case TokenizerErrorKind::kMissingSpecialToken: return "missing_special_token";
    case TokenizerErrorKind::kInvalidUtf8: return "invalid_utf8";
    case TokenizerErrorKind::kUnknownId: return "unknown_id";
    case TokenizerErrorKind::kEmptyPrompt: return "empty_prompt";
    case TokenizerErrorKind::kEmptyLyrics: return "empty_lyrics";
    case TokenizerErrorKind::kPromptTooLong: return "prompt_too_long";
  }
  return "unknown";
}

TokenizerError::TokenizerError(TokenizerErrorKind kind, const std::string& message)
    : std::runtime_error(std::string(to_string(kind)) + ": " + message), kind_(kind) {}

}  // namespace music3::tokenizer
