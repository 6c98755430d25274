#include "engine/io/safetensors_metadata.h"

#include <charconv>
#include <cmath>
#include <stdexcept>

namespace music3::io {

namespace {
[[noreturn]] void refuse(const SafetensorsFile& f, const std::string& key, const std::string& why) {
  throw std::runtime_error(f.path() + ": metadata '" + key + "' " + why);
}
}  // namespace

const std::string& metadata_text(const SafetensorsFile& f, const std::string& key) {
  const auto it = f.metadata().find(key);
  if (it == f.metadata().end()) refuse(f, key, "is missing");
  return it->second;
}

int64_t metadata_int(const SafetensorsFile& f, const std::string& key, int64_t min, int64_t max) {
  const std::string& text = metadata_text(f, key);
  int64_t v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty())
    refuse(f, key, "is '" + text + "', not an integer of 64 bits");
  if (v < min || v > max)
    refuse(f, key, "is " + text + ", outside [" + std::to_string(min) + ", " + std::to_string(max) + "]");
  return v;
}

double metadata_real(const SafetensorsFile& f, const std::string& key) {
  const std::string& text = metadata_text(f, key);
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || text.empty() || !std::isfinite(v))
    refuse(f, key, "is '" + text + "', not a finite number");
  return v;
}

}  // namespace music3::io
