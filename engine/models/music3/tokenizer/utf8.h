// UTF-8 helpers shared by the tokenizer and the prompt rules.
// Contract: text entering the component is validated once (require_valid_utf8
// throws kInvalidUtf8 naming what the text is and the byte offset); code after
// that may iterate without re-checking. lossy_utf8 repairs decoded bytes the way
// Rust's String::from_utf8_lossy does (one U+FFFD per maximal invalid subpart),
// which is what the HF ByteLevel decoder returns.
// Thread-safety: pure functions: thread-safe.
#pragma once
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace music3::tokenizer {

// Offset of the first byte that does not start a valid UTF-8 sequence, or npos.
size_t first_invalid_utf8(std::string_view bytes);
void require_valid_utf8(std::string_view bytes, std::string_view what);

// Decodes the code point at `pos` of valid UTF-8 and advances `pos` past it.
char32_t next_code_point(std::string_view valid, size_t& pos);
void append_utf8(std::string& out, char32_t cp);

std::string lossy_utf8(std::string_view bytes);

}  // namespace music3::tokenizer
