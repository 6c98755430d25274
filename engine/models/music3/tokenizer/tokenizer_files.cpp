#include "engine/models/music3/tokenizer/tokenizer_files.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <sstream>

#include "engine/models/music3/tokenizer/tokenizer_error.h"

namespace music3::tokenizer {

namespace {
using nlohmann::json;

[[noreturn]] void corrupt(const std::string& origin, const std::string& what) {
  throw TokenizerError(TokenizerErrorKind::kCorruptFile, origin + ": " + what);
}

[[noreturn]] void unsupported(const std::string& origin, const std::string& what) {
  throw TokenizerError(TokenizerErrorKind::kUnsupported, origin + ": " + what);
}

json parse(std::string_view text, const std::string& origin) {
  try {
    json j = json::parse(text.begin(), text.end());
    if (!j.is_object()) corrupt(origin, "the top level is not a JSON object");
    return j;
  } catch (const json::parse_error& e) {
    corrupt(origin, "not valid JSON (byte " + std::to_string(e.byte) + "): " + e.what());
  } catch (const json::exception& e) {  // e.g. out_of_range for a number that overflows a double
    corrupt(origin, std::string("not readable JSON: ") + e.what());
  }
}

const json& member(const json& obj, const char* key, const std::string& origin, const std::string& path) {
  auto it = obj.find(key);
  if (it == obj.end()) corrupt(origin, "missing field '" + path + "'");
  return *it;
}

uint32_t token_id(const json& v, const std::string& origin, const std::string& path) {
  if (!v.is_number_integer()) corrupt(origin, "'" + path + "' is not an integer id");
  const auto id = v.get<int64_t>();
  if (id < 0 || id > INT32_MAX) corrupt(origin, "'" + path + "' = " + std::to_string(id) + " is outside [0, 2^31)");
  return static_cast<uint32_t>(id);
}

bool flag(const json& obj, const char* key, bool fallback, const std::string& origin, const std::string& path) {
  auto it = obj.find(key);
  if (it == obj.end() || it->is_null()) return fallback;
  if (!it->is_boolean()) corrupt(origin, "'" + path + "." + key + "' is not a boolean");
  return it->get<bool>();
}

// One added-token description (tokenizer.json's entries and added_tokens_decoder's values
// share this shape). HF's default for `normalized` is !special.
AddedToken added_token(const json& t, uint32_t id, const std::string& origin, const std::string& path) {
  if (!t.is_object()) corrupt(origin, "'" + path + "' is not an object");
  const json& content = member(t, "content", origin, path + ".content");
  if (!content.is_string() || content.get<std::string>().empty())
    corrupt(origin, "'" + path + ".content' is not a non-empty string");
  AddedToken out{content.get<std::string>(), id, flag(t, "special", false, origin, path)};
  for (const char* k : {"lstrip", "rstrip", "single_word"})
    if (flag(t, k, false, origin, path)) unsupported(origin, "added token '" + out.content + "' has " + k + " = true");
  if (flag(t, "normalized", !out.special, origin, path))
    unsupported(origin, "added token '" + out.content + "' is matched after normalization (normalized = true)");
  return out;
}

std::string read_file(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  if (!in) throw TokenizerError(TokenizerErrorKind::kUnreadableFile, "cannot read " + p.string());
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
}  // namespace

TokenizerFiles parse_tokenizer_json(std::string_view text, const std::string& origin) {
  const json root = parse(text, origin);
  TokenizerFiles files;
  files.origin = origin;
  const json& model = member(root, "model", origin, "model");
  if (!model.is_object()) corrupt(origin, "'model' is not an object");
  if (auto t = model.find("type"); t != model.end() && *t != "BPE")
    unsupported(origin, "model.type is " + t->dump() + ", only BPE is implemented");

  const json& vocab = member(model, "vocab", origin, "model.vocab");
  if (!vocab.is_object()) corrupt(origin, "'model.vocab' is not an object of token -> id");
  std::unordered_map<uint32_t, const std::string*> seen;
  files.vocab.reserve(vocab.size());
  for (auto it = vocab.begin(); it != vocab.end(); ++it) {
    const uint32_t id = token_id(it.value(), origin, "model.vocab[" + it.key() + "]");
    auto [pos, fresh] = files.vocab.emplace(it.key(), id);
    if (!seen.emplace(id, &pos->first).second)
      corrupt(origin, "model.vocab gives id " + std::to_string(id) + " to both '" + *seen[id] + "' and '" + it.key() + "'");
  }

  const json& merges = member(model, "merges", origin, "model.merges");
  if (!merges.is_array()) corrupt(origin, "'model.merges' is not an array");
  files.merges.reserve(merges.size());
  for (size_t i = 0; i < merges.size(); ++i) {
    const json& m = merges[i];
    const std::string path = "model.merges[" + std::to_string(i) + "]";
    if (m.is_string()) {
      const std::string& s = m.get_ref<const std::string&>();
      const size_t sp = s.find(' ');
      if (sp == std::string::npos || s.find(' ', sp + 1) != std::string::npos)
        corrupt(origin, "'" + path + "' = \"" + s + "\" is not two pieces separated by one space");
      files.merges.emplace_back(s.substr(0, sp), s.substr(sp + 1));
    } else if (m.is_array() && m.size() == 2 && m[0].is_string() && m[1].is_string()) {
      files.merges.emplace_back(m[0].get<std::string>(), m[1].get<std::string>());
    } else {
      corrupt(origin, "'" + path + "' is neither \"a b\" nor [\"a\", \"b\"]");
    }
  }

  if (auto it = root.find("added_tokens"); it != root.end() && !it->is_null()) {
    if (!it->is_array()) corrupt(origin, "'added_tokens' is not an array");
    for (size_t i = 0; i < it->size(); ++i) {
      const std::string path = "added_tokens[" + std::to_string(i) + "]";
      const json& t = (*it)[i];
      if (!t.is_object()) corrupt(origin, "'" + path + "' is not an object");
      files.added.push_back(added_token(t, token_id(member(t, "id", origin, path + ".id"), origin, path + ".id"), origin, path));
    }
  }
  return files;
}

void apply_tokenizer_config(std::string_view text, const std::string& origin, TokenizerFiles& files) {
  const json root = parse(text, origin);
  if (auto c = root.find("tokenizer_class"); c != root.end() && !c->is_null() && *c != "Qwen2Tokenizer" &&
                                              *c != "Qwen2TokenizerFast")
    unsupported(origin, "tokenizer_class is " + c->dump() + ", not Qwen2Tokenizer");
  for (const char* k : {"add_prefix_space", "split_special_tokens", "add_bos_token", "add_eos_token"})
    if (flag(root, k, false, origin, k)) unsupported(origin, std::string(k) + " = true is not implemented");

  auto dec = root.find("added_tokens_decoder");
  if (dec == root.end() || dec->is_null()) return;
  if (!dec->is_object()) corrupt(origin, "'added_tokens_decoder' is not an object of id -> token");
  std::vector<AddedToken> added;
  for (auto it = dec->begin(); it != dec->end(); ++it) {
    const std::string path = "added_tokens_decoder[" + it.key() + "]";
    uint32_t id = 0;
    try {
      size_t used = 0;
      const long long v = std::stoll(it.key(), &used);
      if (used != it.key().size() || v < 0 || v > INT32_MAX) throw std::invalid_argument(it.key());
      id = static_cast<uint32_t>(v);
    } catch (const std::logic_error&) {
      corrupt(origin, "'" + path + "': the key is not an id in [0, 2^31)");
    }
    added.push_back(added_token(it.value(), id, origin, path));
  }
  files.added = std::move(added);
}

TokenizerFiles read_tokenizer_folder(const std::filesystem::path& dir) {
  const std::filesystem::path folder = std::filesystem::exists(dir / "tokenizer" / "tokenizer.json") ? dir / "tokenizer" : dir;
  const std::filesystem::path json_path = folder / "tokenizer.json";
  const std::filesystem::path config_path = folder / "tokenizer_config.json";
  if (!std::filesystem::exists(json_path))
    throw TokenizerError(TokenizerErrorKind::kUnreadableFile,
                         "no tokenizer.json in " + dir.string() + " or " + (dir / "tokenizer").string());
  TokenizerFiles files = parse_tokenizer_json(read_file(json_path), json_path.string());
  apply_tokenizer_config(read_file(config_path), config_path.string(), files);
  return files;
}

}  // namespace music3::tokenizer
