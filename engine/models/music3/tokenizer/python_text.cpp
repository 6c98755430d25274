#include "engine/models/music3/tokenizer/python_text.h"

#include <utf8proc.h>

#include <cstdio>

#include "engine/models/music3/tokenizer/utf8.h"

namespace music3::tokenizer {

bool is_python_space(char32_t cp) {
  if (cp > 0x10FFFF) return false;
  const utf8proc_property_t* p = utf8proc_get_property(static_cast<utf8proc_int32_t>(cp));
  return p->category == UTF8PROC_CATEGORY_ZS || p->bidi_class == UTF8PROC_BIDI_CLASS_WS ||
         p->bidi_class == UTF8PROC_BIDI_CLASS_B || p->bidi_class == UTF8PROC_BIDI_CLASS_S;
}

namespace {
// Byte length of the code point that ends at `end` (valid UTF-8).
size_t last_code_point_len(std::string_view s, size_t end) {
  size_t start = end - 1;
  while (start > 0 && (static_cast<unsigned char>(s[start]) & 0xC0) == 0x80) --start;
  return end - start;
}

size_t skip_spaces(std::string_view s, size_t pos) {
  while (pos < s.size()) {
    size_t next = pos;
    if (!is_python_space(next_code_point(s, next))) break;
    pos = next;
  }
  return pos;
}

bool is_line_break(char32_t cp) {
  switch (cp) {
    case U'\n': case U'\r': case U'\v': case U'\f': case U'\x1c': case U'\x1d': case U'\x1e':
    case U'\x85': case U'\u2028': case U'\u2029':
      return true;
    default:
      return false;
  }
}

int category(char32_t cp) { return utf8proc_category(static_cast<utf8proc_int32_t>(cp)); }

bool is_cased(char32_t cp) {
  const int c = category(cp);
  return c == UTF8PROC_CATEGORY_LU || c == UTF8PROC_CATEGORY_LL || c == UTF8PROC_CATEGORY_LT;
}

bool is_case_ignorable(char32_t cp) {
  const int c = category(cp);
  return c == UTF8PROC_CATEGORY_MN || c == UTF8PROC_CATEGORY_ME || c == UTF8PROC_CATEGORY_CF ||
         c == UTF8PROC_CATEGORY_LM || c == UTF8PROC_CATEGORY_SK;
}

// CPython's handle_capital_sigma over the decoded string `cps` at index i.
char32_t lower_sigma(const std::vector<char32_t>& cps, size_t i) {
  size_t j = i;
  while (j > 0 && is_case_ignorable(cps[j - 1])) --j;
  bool final_sigma = j > 0 && is_cased(cps[j - 1]);
  if (final_sigma) {
    size_t k = i + 1;
    while (k < cps.size() && is_case_ignorable(cps[k])) ++k;
    final_sigma = k == cps.size() || !is_cased(cps[k]);
  }
  return final_sigma ? U'\u03C2' : U'\u03C3';
}
}  // namespace

std::string_view python_rstrip(std::string_view s) {
  size_t end = s.size();
  while (end > 0) {
    const size_t len = last_code_point_len(s, end);
    size_t pos = end - len;
    if (!is_python_space(next_code_point(s, pos))) break;
    end -= len;
  }
  return s.substr(0, end);
}

std::string_view python_strip(std::string_view s) {
  const std::string_view r = python_rstrip(s);
  return r.substr(skip_spaces(r, 0));
}

std::vector<std::string_view> python_split_first(std::string_view s) {
  std::vector<std::string_view> parts;
  const size_t start = skip_spaces(s, 0);
  if (start == s.size()) return parts;
  size_t pos = start;
  while (pos < s.size()) {
    size_t next = pos;
    if (is_python_space(next_code_point(s, next))) break;
    pos = next;
  }
  parts.push_back(s.substr(start, pos - start));
  const size_t rest = skip_spaces(s, pos);
  if (rest < s.size()) parts.push_back(s.substr(rest));
  return parts;
}

std::vector<std::string_view> python_splitlines(std::string_view s) {
  std::vector<std::string_view> lines;
  size_t line_start = 0, pos = 0;
  while (pos < s.size()) {
    const size_t at = pos;
    const char32_t cp = next_code_point(s, pos);
    if (!is_line_break(cp)) continue;
    lines.push_back(s.substr(line_start, at - line_start));
    if (cp == U'\r' && pos < s.size() && s[pos] == '\n') ++pos;
    line_start = pos;
  }
  if (line_start < s.size()) lines.push_back(s.substr(line_start));
  return lines;
}

std::string python_lower(std::string_view s) {
  std::vector<char32_t> cps;
  for (size_t pos = 0; pos < s.size();) cps.push_back(next_code_point(s, pos));
  std::string out;
  out.reserve(s.size());
  for (size_t i = 0; i < cps.size(); ++i) {
    const char32_t cp = cps[i];
    if (cp == U'\u0130') {
      out += "i\xCC\x87";
    } else if (cp == U'\u03A3') {
      append_utf8(out, lower_sigma(cps, i));
    } else {
      append_utf8(out, static_cast<char32_t>(utf8proc_tolower(static_cast<utf8proc_int32_t>(cp))));
    }
  }
  return out;
}

const std::string& python_space_class() {
  static const std::string cls = [] {
    std::string out;
    char buf[32];
    for (char32_t cp = 0; cp <= 0x10FFFF; ++cp) {
      if (!is_python_space(cp)) continue;
      char32_t last = cp;
      while (last + 1 <= 0x10FFFF && is_python_space(last + 1)) ++last;
      std::snprintf(buf, sizeof buf, "\\x{%X}-\\x{%X}", static_cast<unsigned>(cp), static_cast<unsigned>(last));
      out += buf;
      cp = last;
    }
    return out;
  }();
  return cls;
}

}  // namespace music3::tokenizer
