// MiniMax-Music3's two text rules, as diffusers 0.42.1's encoders.py writes them
// (`_clean_caption`, `_normalize_lyrics`), with Python 3.11 `str`/`re` semantics:
// Unicode \s (python_text.h), str.splitlines() boundaries, str.strip()/rstrip(),
// str.split(None, 1), str.lower() inside [tags]. Patterns run on PCRE2 (UTF + UCP)
// with \s spelled as Python's whitespace class and ^/$ seeing only \n as a line end.
// Contract: inputs are valid UTF-8 (prompt_ids.h checks before calling); the result is
// byte-for-byte what the Python functions return for the same string.
// Thread-safety: pure functions: thread-safe.
#pragma once
#include <string>
#include <string_view>

namespace music3::tokenizer {

std::string clean_caption(std::string_view caption);
std::string normalize_lyrics(std::string_view lyrics);

}  // namespace music3::tokenizer
