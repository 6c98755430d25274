#include "engine/cli/tokens_command.h"

#include <iostream>
#include <nlohmann/json.hpp>

#include "engine/cli/args.h"
#include "engine/cli/command.h"
#include "engine/models/music3/tokenizer/prompt_ids.h"

namespace music3::cli {

const char* const kTokensUsage =
    "usage: music3 tokens --checkpoint DIR --prompt TEXT (--lyrics TEXT | --lyrics-file FILE) [--json]\n";

namespace {
std::string ids_line(const std::vector<uint32_t>& ids) {
  std::string s;
  for (size_t i = 0; i < ids.size(); ++i) {
    if (i) s += ' ';
    s += std::to_string(ids[i]);
  }
  return s;
}
}  // namespace

int run_tokens_command(const std::vector<std::string>& argv) {
  Args a(argv, {"--checkpoint", "--prompt", "--lyrics", "--lyrics-file"}, {"--json"});
  if (!a.has("--checkpoint")) throw UsageError("--checkpoint DIR is required");
  if (!a.has("--prompt")) throw UsageError("--prompt TEXT is required");
  if (a.has("--lyrics") == a.has("--lyrics-file")) throw UsageError("give exactly one of --lyrics TEXT or --lyrics-file FILE");
  const std::string lyrics = a.has("--lyrics") ? *a.get("--lyrics") : read_text_file("--lyrics-file", *a.get("--lyrics-file"));

  tokenizer::Qwen2Tokenizer tok = tokenizer::Qwen2Tokenizer::from_folder(*a.get("--checkpoint"));
  tokenizer::check_template_tokens(tok);
  const tokenizer::PromptIds p = tokenizer::encode_prompt(tok, *a.get("--prompt"), lyrics);

  std::vector<std::string> pieces;
  for (uint32_t id : p.cond) pieces.push_back(tok.piece(id));
  if (a.has("--json")) {
    nlohmann::json j = {{"text", p.text}, {"ids", p.cond}, {"cfg_ids", p.uncond}, {"pieces", pieces}};
    std::cout << j.dump(1) << "\n";
    return 0;
  }
  std::cout << "text: " << nlohmann::json(p.text).dump() << "\n"
            << "tokens: " << p.cond.size() << "\n"
            << "ids: " << ids_line(p.cond) << "\n"
            << "cfg_ids: " << ids_line(p.uncond) << "\n"
            << "pieces: " << nlohmann::json(pieces).dump() << "\n";
  return 0;
}

Command tokens_command() {
  return {"tokens", "the language model's text input: template, Qwen2 BPE ids and the CFG row", kTokensUsage,
          run_tokens_command};
}

}  // namespace music3::cli
