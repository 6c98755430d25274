#include "gates/tokenizer/tokenizer_oracle.h"

#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>

namespace music3::gates {

std::filesystem::path oracle_dir() {
  if (const char* env = std::getenv("MUSIC3_TOKENIZER_ORACLE_DIR")) return env;
  return MUSIC3_DEFAULT_TOKENIZER_ORACLE_DIR;
}

std::string read_text_file(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in)
    throw std::runtime_error("cannot read " + path.string() +
                             " (written by the ctest fixture tokenizer_oracle_setup: oracle_bridge/tokenizer/generate.py)");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

nlohmann::json read_golden(const std::string& name) {
  const auto path = oracle_dir() / name;
  try {
    return nlohmann::json::parse(read_text_file(path));
  } catch (const nlohmann::json::parse_error& e) {
    throw std::runtime_error(path.string() + ": " + e.what());
  }
}

std::filesystem::path oracle_tokenizer_root(const std::string& name) {
  const auto root = oracle_dir() / name;
  if (!std::filesystem::exists(root / "tokenizer" / "tokenizer.json"))
    throw std::runtime_error("no oracle tokenizer at " + root.string() + " (run the ctest fixture tokenizer_oracle_setup)");
  return root;
}

std::vector<uint32_t> id_list(const nlohmann::json& ids) { return ids.get<std::vector<uint32_t>>(); }

}  // namespace music3::gates
