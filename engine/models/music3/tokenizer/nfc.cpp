#include "engine/models/music3/tokenizer/nfc.h"

#include <utf8proc.h>

#include <cstdlib>
#include <stdexcept>

namespace music3::tokenizer {

bool may_change_under_nfc(std::string_view valid) {
  for (unsigned char b : valid)
    if (b >= 0xCC) return true;
  return false;
}

std::string nfc(std::string_view valid) {
  if (!may_change_under_nfc(valid)) return std::string(valid);
  utf8proc_uint8_t* out = nullptr;
  const utf8proc_ssize_t n = utf8proc_map(reinterpret_cast<const utf8proc_uint8_t*>(valid.data()),
                                          static_cast<utf8proc_ssize_t>(valid.size()), &out,
                                          static_cast<utf8proc_option_t>(UTF8PROC_STABLE | UTF8PROC_COMPOSE));
  if (n < 0) throw std::runtime_error(std::string("utf8proc NFC failed: ") + utf8proc_errmsg(n));
  std::string result(reinterpret_cast<const char*>(out), static_cast<size_t>(n));
  std::free(out);
  return result;
}

}  // namespace music3::tokenizer
