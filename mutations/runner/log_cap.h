// cap_log(): keeps a battery log readable and the committed reports small. A log over `max_bytes` is rewritten
// with its first and last lines, the battery's own "###" notes and "$ (cd ...)" command lines, the first lines that
// carry evidence (a gtest failure and the lines after it, errors: at most 48 KiB) and, where lines were dropped, one
// marker line saying how many; a kept line over 1 KiB keeps its head and a marker for the rest. A log at or under the
// cap is left byte for byte, and so is a log this function already capped (its markers are kept like the notes):
// capping twice changes nothing. Not thread-safe for one path.
#pragma once
#include <cstddef>
#include <string>

namespace music3::battery {

inline constexpr size_t kLogCapBytes = 96 * 1024;

void cap_log(const std::string& path, size_t max_bytes = kLogCapBytes);

}  // namespace music3::battery
