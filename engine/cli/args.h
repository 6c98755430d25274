// A small command-line parser for `music3 <command> --flag value ...`.
// Contract: every flag must be declared; an unknown flag, a missing value, or a
// value that does not parse throws UsageError naming the flag and what was wrong.
// Thread-safety: an Args is immutable once parsed: const use is thread-safe.
#pragma once
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

namespace music3::cli {

class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

class Args {
 public:
  Args(const std::vector<std::string>& argv, const std::set<std::string>& valued, const std::set<std::string>& switches);
  bool has(const std::string& flag) const { return values_.count(flag) || switches_.count(flag); }
  std::optional<std::string> get(const std::string& flag) const;
  std::string get_or(const std::string& flag, const std::string& fallback) const;
  int64_t get_int_or(const std::string& flag, int64_t fallback, int64_t min, int64_t max) const;
  uint64_t get_u64_or(const std::string& flag, uint64_t fallback) const;

 private:
  std::map<std::string, std::string> values_;
  std::set<std::string> switches_;
};

// The whole content of a file a flag names (e.g. --lyrics-file); UsageError naming the flag and the path when it
// cannot be read.
std::string read_text_file(const std::string& flag, const std::string& path);

}  // namespace music3::cli
