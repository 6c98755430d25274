// Where the tokenizer gates find the oracle (oracle_bridge/tokenizer/generate.py's
// output, written by the ctest fixture `tokenizer_oracle`) and how they read it.
// Contract: oracle_dir() is $MUSIC3_TOKENIZER_ORACLE_DIR or the build tree's
// tokenizer_oracle/. read_golden() throws std::runtime_error naming a missing or
// unparsable file, so a gate without its oracle FAILS (never skips).
#pragma once
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "engine/models/music3/tokenizer/qwen2_tokenizer.h"

namespace music3::gates {

std::filesystem::path oracle_dir();
nlohmann::json read_golden(const std::string& name);
std::string read_text_file(const std::filesystem::path& path);
// The oracle tokenizer `name` ("tiny" or "qwen"): its pipeline-root folder.
std::filesystem::path oracle_tokenizer_root(const std::string& name);
// Encodes a JSON array of ids as uint32.
std::vector<uint32_t> id_list(const nlohmann::json& ids);

}  // namespace music3::gates
