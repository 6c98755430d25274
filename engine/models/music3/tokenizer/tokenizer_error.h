// The one exception the tokenizer component throws for bad input.
// Contract: kind() says what was wrong (callers and gates branch on it); what()
// is a message naming the file, field, offset or input that caused it. Nothing
// in this component crashes or returns silent garbage on bad input.
// Thread-safety: a plain exception type: thread-safe.
#pragma once
#include <stdexcept>
#include <string>

namespace music3::tokenizer {

enum class TokenizerErrorKind {
  kUnreadableFile,      // a file is missing or cannot be read
  kCorruptFile,         // a file is not the JSON it must be (syntax, types, missing fields)
  kUnknownMergePiece,   // a merge names a piece (or yields a piece) that is not in the vocabulary
  kUnsupported,         // a valid setting this engine does not implement (refused, never ignored)
  kMissingSpecialToken, // a token the MiniMax-Music3 template needs is absent or has another id
  kInvalidUtf8,         // input text is not valid UTF-8
  kUnknownId,           // decode was given an id the tokenizer does not have
  kEmptyPrompt,         // the prompt is empty or only whitespace
  kEmptyLyrics,         // the lyrics are empty or only whitespace
  kPromptTooLong,       // the assembled prompt exceeds the 5000-token limit
};

const char* to_string(TokenizerErrorKind kind);

class TokenizerError : public std::runtime_error {
 public:
  TokenizerError(TokenizerErrorKind kind, const std::string& message);
  TokenizerErrorKind kind() const { return kind_; }

 private:
  TokenizerErrorKind kind_;
};

}  // namespace music3::tokenizer
