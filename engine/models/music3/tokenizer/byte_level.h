// The GPT-2 byte-level alphabet used by Qwen2's BPE: every byte has a printable
// stand-in character (bytes 33-126, 161-172 and 174-255 stand for themselves; the
// other 68 bytes map, in byte order, to U+0100 onwards).
// Contract: byte_char(b) is that character; byte_of_char(c) is the inverse or -1
// for a character that stands for no byte (HF's ByteLevel decoder then passes the
// character's own UTF-8 bytes through, as token_bytes does).
// Thread-safety: pure functions: thread-safe.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace music3::tokenizer {

char32_t byte_char(uint8_t b);
int byte_of_char(char32_t c);
// The piece's byte-level spelling (what the vocabulary's keys look like).
std::string byte_level_spelling(std::string_view bytes);
// The bytes a vocabulary entry stands for.
std::string token_bytes(std::string_view token);

}  // namespace music3::tokenizer
