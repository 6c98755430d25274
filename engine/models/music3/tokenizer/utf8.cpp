#include "engine/models/music3/tokenizer/utf8.h"

#include <utf8proc.h>

#include <cstdio>

#include "engine/models/music3/tokenizer/tokenizer_error.h"

namespace music3::tokenizer {

size_t first_invalid_utf8(std::string_view bytes) {
  const auto* p = reinterpret_cast<const utf8proc_uint8_t*>(bytes.data());
  size_t pos = 0;
  while (pos < bytes.size()) {
    if (p[pos] < 0x80) {
      ++pos;
      continue;
    }
    utf8proc_int32_t cp = 0;
    const utf8proc_ssize_t n = utf8proc_iterate(p + pos, static_cast<utf8proc_ssize_t>(bytes.size() - pos), &cp);
    if (n <= 0) return pos;
    pos += static_cast<size_t>(n);
  }
  return std::string_view::npos;
}

void require_valid_utf8(std::string_view bytes, std::string_view what) {
  const size_t bad = first_invalid_utf8(bytes);
  if (bad == std::string_view::npos) return;
  char hex[8];
  std::snprintf(hex, sizeof hex, "0x%02X", static_cast<unsigned char>(bytes[bad]));
  throw TokenizerError(TokenizerErrorKind::kInvalidUtf8, std::string(what) + " is not valid UTF-8: byte " + hex +
                                                             " at offset " + std::to_string(bad));
}

char32_t next_code_point(std::string_view valid, size_t& pos) {
  const auto b0 = static_cast<unsigned char>(valid[pos]);
  if (b0 < 0x80) {
    ++pos;
    return b0;
  }
  utf8proc_int32_t cp = 0;
  const utf8proc_ssize_t n = utf8proc_iterate(reinterpret_cast<const utf8proc_uint8_t*>(valid.data() + pos),
                                              static_cast<utf8proc_ssize_t>(valid.size() - pos), &cp);
  pos += n > 0 ? static_cast<size_t>(n) : 1;  // callers pass validated text; never loop forever on a bad byte
  return n > 0 ? static_cast<char32_t>(cp) : U'\uFFFD';
}

void append_utf8(std::string& out, char32_t cp) {
  utf8proc_uint8_t buf[4];
  const utf8proc_ssize_t n = utf8proc_encode_char(static_cast<utf8proc_int32_t>(cp), buf);
  out.append(reinterpret_cast<const char*>(buf), static_cast<size_t>(n));
}

namespace {
// Length of the longest prefix of `s` (starting with a lead byte) that could still
// begin a valid sequence: the "maximal subpart" of Unicode 6.0 §3.9 / WHATWG.
size_t maximal_subpart(std::string_view s) {
  const auto b0 = static_cast<unsigned char>(s[0]);
  size_t need = 0;
  unsigned char lo = 0x80, hi = 0xBF;
  if (b0 >= 0xC2 && b0 <= 0xDF) {
    need = 1;
  } else if (b0 >= 0xE0 && b0 <= 0xEF) {
    need = 2;
    if (b0 == 0xE0) lo = 0xA0;
    if (b0 == 0xED) hi = 0x9F;
  } else if (b0 >= 0xF0 && b0 <= 0xF4) {
    need = 3;
    if (b0 == 0xF0) lo = 0x90;
    if (b0 == 0xF4) hi = 0x8F;
  } else {
    return 1;
  }
  size_t len = 1;
  for (size_t k = 0; k < need && len < s.size(); ++k) {
    const auto b = static_cast<unsigned char>(s[len]);
    if (b < lo || b > hi) break;
    lo = 0x80;
    hi = 0xBF;
    ++len;
  }
  return len;
}
}  // namespace

std::string lossy_utf8(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size());
  size_t pos = 0;
  while (pos < bytes.size()) {
    const size_t bad = first_invalid_utf8(bytes.substr(pos));
    if (bad == std::string_view::npos) {
      out.append(bytes.substr(pos));
      break;
    }
    out.append(bytes.substr(pos, bad));
    pos += bad;
    pos += maximal_subpart(bytes.substr(pos));
    out.append("\xEF\xBF\xBD");
  }
  return out;
}

}  // namespace music3::tokenizer
