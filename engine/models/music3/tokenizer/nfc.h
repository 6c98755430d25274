// Unicode NFC normalization (utf8proc), as the HF NFC normalizer applies it.
// Contract: `valid` must be valid UTF-8. Text whose bytes are all below 0xCC holds only
// code points below U+0300, which are NFC-stable starters, and is returned unchanged
// without calling utf8proc (the fast path for ASCII and Latin-1 text).
#pragma once
#include <string>
#include <string_view>

namespace music3::tokenizer {

bool may_change_under_nfc(std::string_view valid);
std::string nfc(std::string_view valid);

}  // namespace music3::tokenizer
