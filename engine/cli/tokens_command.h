// `music3 tokens`: the language model's text input for a prompt and lyrics.
// Contract: returns exit_code::kOk (engine/core/exit_code.h). Prints the
// assembled template string, the ids of both rows (conditional, CFG) and the pieces
// (the vocabulary's byte-level spelling of each id), or one JSON object with --json.
// Bad input (missing flag, unreadable --lyrics-file, a tokenizer that cannot be loaded,
// invalid UTF-8, empty prompt or lyrics, more than 5000 tokens) throws UsageError or
// tokenizer::TokenizerError naming it; main() turns them into exit 1 (usage) and 5 (bad
// input). Registered in the command table as tokens_command() (command.h).
// Thread-safety: runs on main()'s thread; no shared state.
#pragma once
#include <string>
#include <vector>

namespace music3::cli {
int run_tokens_command(const std::vector<std::string>& args);
extern const char* const kTokensUsage;
}  // namespace music3::cli
