#include "engine/cli/args.h"

#include <charconv>
#include <fstream>
#include <sstream>

namespace music3::cli {

Args::Args(const std::vector<std::string>& argv, const std::set<std::string>& valued,
           const std::set<std::string>& switches) {
  for (size_t i = 0; i < argv.size(); ++i) {
    const std::string& a = argv[i];
    if (switches.count(a)) {
      switches_.insert(a);
    } else if (valued.count(a)) {
      if (i + 1 >= argv.size()) throw UsageError("flag " + a + " needs a value");
      if (values_.count(a)) throw UsageError("flag " + a + " given twice");
      values_[a] = argv[++i];
    } else {
      throw UsageError("unknown argument '" + a + "'");
    }
  }
}

std::optional<std::string> Args::get(const std::string& flag) const {
  auto it = values_.find(flag);
  if (it == values_.end()) return std::nullopt;
  return it->second;
}

std::string Args::get_or(const std::string& flag, const std::string& fallback) const {
  return get(flag).value_or(fallback);
}

int64_t Args::get_int_or(const std::string& flag, int64_t fallback, int64_t min, int64_t max) const {
  auto v = get(flag);
  if (!v) return fallback;
  int64_t out = 0;
  auto [p, ec] = std::from_chars(v->data(), v->data() + v->size(), out);
  if (ec != std::errc() || p != v->data() + v->size())
    throw UsageError("flag " + flag + ": '" + *v + "' is not an integer");
  if (out < min || out > max)
    throw UsageError("flag " + flag + ": " + *v + " is outside [" + std::to_string(min) + ", " + std::to_string(max) + "]");
  return out;
}

uint64_t Args::get_u64_or(const std::string& flag, uint64_t fallback) const {
  auto v = get(flag);
  if (!v) return fallback;
  uint64_t out = 0;
  auto [p, ec] = std::from_chars(v->data(), v->data() + v->size(), out);
  if (ec != std::errc() || p != v->data() + v->size())
    throw UsageError("flag " + flag + ": '" + *v + "' is not a non-negative integer");
  return out;
}

std::string read_text_file(const std::string& flag, const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw UsageError(flag + ": cannot read '" + path + "'");
  std::ostringstream ss;
  ss << in.rdbuf();
  if (in.bad()) throw UsageError(flag + ": cannot read '" + path + "'");
  return ss.str();
}

}  // namespace music3::cli
