#include "engine/models/music3/tokenizer/byte_level.h"

#include <array>

#include "engine/models/music3/tokenizer/utf8.h"

namespace music3::tokenizer {

namespace {
bool stands_for_itself(unsigned b) { return (b >= 33 && b <= 126) || (b >= 161 && b <= 172) || (b >= 174 && b <= 255); }

const std::array<char32_t, 256>& byte_chars() {
  static const std::array<char32_t, 256> table = [] {
    std::array<char32_t, 256> t{};
    char32_t next = 256;
    for (unsigned b = 0; b < 256; ++b) t[b] = stands_for_itself(b) ? static_cast<char32_t>(b) : next++;
    return t;
  }();
  return table;
}
}  // namespace

char32_t byte_char(uint8_t b) { return byte_chars()[b]; }

int byte_of_char(char32_t c) {
  if (c < 256) return stands_for_itself(c) ? static_cast<int>(c) : -1;
  if (c >= 256 + 68) return -1;
  for (unsigned b = 0; b < 256; ++b)
    if (byte_chars()[b] == c) return static_cast<int>(b);
  return -1;
}

std::string byte_level_spelling(std::string_view bytes) {
  std::string out;
  out.reserve(bytes.size() * 2);
  for (unsigned char b : bytes) append_utf8(out, byte_char(b));
  return out;
}

std::string token_bytes(std::string_view token) {
  std::string out;
  out.reserve(token.size());
  for (size_t pos = 0; pos < token.size();) {
    const size_t start = pos;
    const int b = byte_of_char(next_code_point(token, pos));
    if (b >= 0) {
      out += static_cast<char>(b);
    } else {
      out.append(token.substr(start, pos - start));
    }
  }
  return out;
}

}  // namespace music3::tokenizer
