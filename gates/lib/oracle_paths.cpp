#include "gates/lib/oracle_paths.h"

#include <cstdlib>
#include <fstream>
#include <map>
#include <mutex>
#include <stdexcept>

namespace music3::gates {
namespace {
std::string env_or(const char* name, const char* fallback) {
  const char* v = std::getenv(name);
  return v && *v ? v : fallback;
}
}  // namespace

std::string source_dir() { return env_or("MUSIC3_SOURCE_DIR", MUSIC3_DEFAULT_SOURCE_DIR); }
std::string oracle_dir() { return env_or("MUSIC3_ORACLE_DIR", MUSIC3_DEFAULT_ORACLE_DIR); }
std::string goldens_dir(const std::string& component) { return source_dir() + "/oracle_bridge/goldens/" + component; }

const nlohmann::json& oracle_manifest(const std::string& component) {
  static std::mutex mu;
  static std::map<std::string, nlohmann::json> loaded;
  std::lock_guard lock(mu);
  auto it = loaded.find(component);
  if (it != loaded.end()) return it->second;
  const std::string path = goldens_dir(component) + "/manifest.json";
  std::ifstream f(path);
  if (!f) throw std::runtime_error("cannot open the oracle manifest " + path);
  return loaded.emplace(component, nlohmann::json::parse(f)).first->second;
}

}  // namespace music3::gates
