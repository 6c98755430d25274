// Python `str` semantics that MiniMax-Music3's prompt rules rely on, on valid UTF-8.
// Contract (CPython 3.11, read from its documentation and source):
//  - is_python_space: str.isspace(), i.e. general category Zs or bidirectional
//    class WS, B or S (from utf8proc's tables); also what `re`'s \s matches.
//  - python_strip / python_rstrip: str.strip() / str.rstrip() with no argument.
//  - python_split_first: str.split(None, 1) (at most two parts, no empty parts).
//  - python_splitlines: str.splitlines() (the ten boundaries of the Python docs:
//    \n \r \r\n \v \f \x1c \x1d \x1e \x85 \u2028 \u2029; no empty last line).
//  - python_lower: str.lower(): the simple lower-case mapping, U+0130 to "i\u0307"
//    (the one unconditional multi-character mapping of SpecialCasing.txt) and the
//    Final_Sigma rule for U+03A3. Cased / case-ignorable are taken from the general
//    category (Lu Ll Lt / Mn Me Cf Lm Sk): the Other_Lowercase letters and the
//    Word_Break apostrophes that CPython also counts are not in utf8proc's tables.
//  - python_space_class: a PCRE2 character-class body matching exactly is_python_space.
// Thread-safety: pure functions: thread-safe.
#pragma once
#include <string>
#include <string_view>
#include <vector>

namespace music3::tokenizer {

bool is_python_space(char32_t cp);
std::string_view python_strip(std::string_view s);
std::string_view python_rstrip(std::string_view s);
std::vector<std::string_view> python_split_first(std::string_view s);
std::vector<std::string_view> python_splitlines(std::string_view s);
std::string python_lower(std::string_view s);
const std::string& python_space_class();

}  // namespace music3::tokenizer
