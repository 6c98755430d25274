#include "engine/io/safetensors_set.h"

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>
#include <stdexcept>

#include "engine/io/sha256.h"

namespace music3::io {
namespace fs = std::filesystem;

namespace {
[[noreturn]] void fail(const std::string& path, const std::string& what) { throw std::runtime_error(path + ": " + what); }

nlohmann::json read_index(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) fail(path, "cannot open the index");
  try {
    return nlohmann::json::parse(f);
  } catch (const nlohmann::json::exception& e) {  // parse errors, and numbers out of range (406)
    fail(path, std::string("the index is not valid JSON: ") + e.what());
  }
}
}  // namespace

SafetensorsSet SafetensorsSet::open(const std::string& dir, const std::string& stem) {
  SafetensorsSet s;
  s.files_ = std::make_shared<std::vector<SafetensorsFile>>();
  const fs::path index = fs::path(dir) / (stem + ".safetensors.index.json");
  if (!fs::exists(index)) {
    s.path_ = (fs::path(dir) / (stem + ".safetensors")).string();
    s.files_->emplace_back(s.path_);
    for (const auto& name : s.files_->front().names()) s.where_[name] = 0;
    return s;
  }
  s.path_ = index.string();
  const nlohmann::json j = read_index(s.path_);
  if (!j.is_object() || !j.contains("weight_map") || !j.at("weight_map").is_object())
    fail(s.path_, "the index has no \"weight_map\" object");
  std::map<std::string, size_t> shard_of_file;
  for (const auto& [name, shard] : j.at("weight_map").items()) {
    if (!shard.is_string()) fail(s.path_, "tensor '" + name + "': the weight_map entry is not a file name");
    const std::string file = shard.get<std::string>();
    if (file.empty() || file.find('/') != std::string::npos || file == "." || file == "..")
      fail(s.path_, "tensor '" + name + "': shard '" + file + "' is not a file name in the index's folder");
    auto [it, added] = shard_of_file.emplace(file, s.files_->size());
    if (added) {
      const fs::path shard_path = fs::path(dir) / file;
      if (!fs::exists(shard_path)) fail(s.path_, "tensor '" + name + "': shard '" + file + "' does not exist");
      s.files_->emplace_back(shard_path.string());
    }
    const SafetensorsFile& f = (*s.files_)[it->second];
    if (!f.has(name)) fail(s.path_, "tensor '" + name + "' is mapped to shard '" + file + "', which does not hold it");
    s.where_[name] = it->second;
  }
  if (s.files_->empty()) fail(s.path_, "the index's weight_map is empty");
  for (size_t i = 0; i < s.files_->size(); ++i)
    for (const auto& name : (*s.files_)[i].names()) {
      auto it = s.where_.find(name);
      if (it == s.where_.end() || it->second != i)
        fail(s.path_, "shard '" + fs::path((*s.files_)[i].path()).filename().string() + "' holds tensor '" + name +
                          "', which the index does not map to it");
    }
  return s;
}

std::vector<std::string> SafetensorsSet::names() const {
  std::vector<std::string> out;
  for (const auto& kv : where_) out.push_back(kv.first);
  return out;
}

const SafetensorsFile& SafetensorsSet::file_of(const std::string& name) const {
  auto it = where_.find(name);
  if (it == where_.end()) throw std::runtime_error("missing tensor '" + name + "' in " + path_);
  return (*files_)[it->second];
}

std::string SafetensorsSet::sha256() const {
  if (!path_.ends_with(".index.json")) return files_->front().sha256();
  std::ifstream f(path_, std::ios::binary);
  std::stringstream text;
  text << f.rdbuf();
  const std::string bytes = text.str();
  return sha256_hex(bytes.data(), bytes.size());
}

}  // namespace music3::io
