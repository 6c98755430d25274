#include "engine/io/component_config.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace music3::io {

ComponentConfig::ComponentConfig(std::string path) : path_(std::move(path)) {
  std::ifstream in(path_, std::ios::binary);
  if (!in) throw std::runtime_error(path_ + ": cannot open config: " + std::strerror(errno));
  if (!std::filesystem::is_regular_file(path_)) throw std::runtime_error(path_ + ": config is not a regular file");
  std::stringstream text;
  text << in.rdbuf();
  if (in.bad()) throw std::runtime_error(path_ + ": cannot read config: " + std::strerror(errno));
  try {
    json_ = nlohmann::json::parse(text.str());
  } catch (const nlohmann::json::exception& e) {  // parse errors, and numbers out of range (406)
    throw std::runtime_error(path_ + ": config is not valid JSON: " + e.what());
  }
  if (!json_.is_object())
    throw std::runtime_error(path_ + ": config is a JSON " + json_.type_name() + ", expected an object");
}

const nlohmann::json& ComponentConfig::at(const std::string& key) const {
  auto it = json_.find(key);
  if (it == json_.end()) throw std::runtime_error(path_ + ": missing key '" + key + "'");
  return *it;
}

bool ComponentConfig::absent_or_null(const std::string& key) const {
  auto it = json_.find(key);
  return it == json_.end() || it->is_null();
}

void ComponentConfig::wrong_type(const std::string& key, const char* expected) const {
  const nlohmann::json& v = at(key);
  throw std::runtime_error(path_ + ": key '" + key + "' is " + v.dump() + ", expected " + expected);
}

int64_t ComponentConfig::get_int(const std::string& key) const {
  const nlohmann::json& v = at(key);
  if (!v.is_number_integer()) wrong_type(key, "an integer");
  if (v.is_number_unsigned() && v.get<uint64_t>() > static_cast<uint64_t>(INT64_MAX))
    wrong_type(key, "an integer that fits in 64 signed bits");
  return v.get<int64_t>();
}

int64_t ComponentConfig::get_int_or(const std::string& key, int64_t fallback) const {
  return absent_or_null(key) ? fallback : get_int(key);
}

double ComponentConfig::get_float(const std::string& key) const {
  const nlohmann::json& v = at(key);
  if (!v.is_number()) wrong_type(key, "a number");
  return v.get<double>();
}

double ComponentConfig::get_float_or(const std::string& key, double fallback) const {
  return absent_or_null(key) ? fallback : get_float(key);
}

bool ComponentConfig::get_bool(const std::string& key) const {
  const nlohmann::json& v = at(key);
  if (!v.is_boolean()) wrong_type(key, "a boolean");
  return v.get<bool>();
}

std::string ComponentConfig::get_string(const std::string& key) const {
  const nlohmann::json& v = at(key);
  if (!v.is_string()) wrong_type(key, "a string");
  return v.get<std::string>();
}

}  // namespace music3::io

namespace music3::io {

std::vector<int64_t> ComponentConfig::get_int_list(const std::string& key) const {
  const nlohmann::json& v = at(key);
  if (!v.is_array()) wrong_type(key, "an array of integers");
  std::vector<int64_t> out;
  for (const auto& e : v) {
    if (!e.is_number_integer() || (e.is_number_unsigned() && e.get<uint64_t>() > uint64_t(INT64_MAX)))
      wrong_type(key, "an array of integers");
    out.push_back(e.get<int64_t>());
  }
  return out;
}

}  // namespace music3::io
