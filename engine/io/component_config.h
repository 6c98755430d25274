// A diffusers component's config.json, read with typed getters.
// Contract: the constructor reads and parses the file and requires a JSON object at
// the top level; every getter throws std::runtime_error starting with the file path
// and naming the key when it is missing or holds the wrong type. get_int accepts
// JSON integers only (4096.0 is refused); get_float accepts any JSON number. The
// *_or getters return the default when the key is absent or null (diffusers writes
// Python None as null) and still throw on a present value of the wrong type.
// Thread-safety: const use of a loaded config is thread-safe.
#pragma once
#include <cstdint>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace music3::io {

class ComponentConfig {
 public:
  explicit ComponentConfig(std::string path);

  const std::string& path() const { return path_; }
  bool has(const std::string& key) const { return json_.contains(key); }
  std::string class_name() const { return get_string("_class_name"); }

  int64_t get_int(const std::string& key) const;
  int64_t get_int_or(const std::string& key, int64_t fallback) const;
  double get_float(const std::string& key) const;
  double get_float_or(const std::string& key, double fallback) const;
  bool get_bool(const std::string& key) const;
  std::string get_string(const std::string& key) const;
  std::vector<int64_t> get_int_list(const std::string& key) const;  // a JSON array of integers

 private:
  const nlohmann::json& at(const std::string& key) const;
  bool absent_or_null(const std::string& key) const;
  [[noreturn]] void wrong_type(const std::string& key, const char* expected) const;

  std::string path_;
  nlohmann::json json_;
};

}  // namespace music3::io
