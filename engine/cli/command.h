// The `music3` command table: each subcommand registers its name, a one-line summary,
// its usage text and its run function; main() dispatches by name, prints `--help`
// (exit 0) and turns every error into a message naming the problem and an exit code of
// the shared table (engine/core/exit_code.h): 1 usage, 5 bad input, 6 device refused,
// and what run() returns (0 ok, 7 non-finite values). Every command takes --json.
// Thread-safety: commands() is an immutable table.
#pragma once
#include <functional>
#include <string>
#include <vector>

namespace music3::cli {

struct Command {
  std::string name;
  std::string summary;
  const char* usage;
  std::function<int(const std::vector<std::string>&)> run;
};

const std::vector<Command>& commands();
const Command* find_command(const std::string& name);  // nullptr when unknown

// The registrations, one per command file.
Command depth_command();
Command tokens_command();
Command ar_command();
Command vocode_command();
Command acoustic_command();
Command generate_command();

}  // namespace music3::cli
