// Unicode NFC normalization (utf8proc), as the HF NFC normalizer applies it.
// Contract: `valid` must be valid UTF-8. Text whose bytes are all below 0xCC holds only
// code points below U+0300, which are NFC-stable starters, and is returned unchanged
// without calling utf8proc (the fast path for ASCII and Latin-1 text).
// Known residual (measured by the oracle's code-point sweep, issue 10): HF tokenizers' NFC tables are
// older than utf8proc 2.8's (Unicode 15), so combining marks assigned since Unicode 14 (e.g. U+0898-U+089F,
// U+1AC1.., U+1DFA, U+10F82.., U+1E4EC-U+1E4EF) are canonically reordered here and left in place by HF:
// a string holding two of them next to each other can get other ids.
// Thread-safety: pure functions: thread-safe.
#pragma once
#include <string>
#include <string_view>

namespace music3::tokenizer {

bool may_change_under_nfc(std::string_view valid);
std::string nfc(std::string_view valid);

}  // namespace music3::tokenizer
