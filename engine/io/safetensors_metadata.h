// Numbers stored in a safetensors file's __metadata__ (a map of strings), read strictly: the whole value must be
// the number (no trailing text), an integer must lie in [min, max], a real must be finite.
// Contract: a missing key, text that is not a number, or a value out of range throws std::runtime_error naming the
// file and the key (never std::invalid_argument / std::out_of_range, which name neither).
// Thread-safety: reads the file's immutable metadata: thread-safe.
#pragma once
#include <cstdint>
#include <limits>
#include <string>

#include "engine/io/safetensors.h"

namespace music3::io {

const std::string& metadata_text(const SafetensorsFile& f, const std::string& key);
int64_t metadata_int(const SafetensorsFile& f, const std::string& key,
                     int64_t min = std::numeric_limits<int64_t>::min(), int64_t max = std::numeric_limits<int64_t>::max());
double metadata_real(const SafetensorsFile& f, const std::string& key);

}  // namespace music3::io
