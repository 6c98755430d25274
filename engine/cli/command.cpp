#include "engine/cli/command.h"

namespace music3::cli {

const std::vector<Command>& commands() {
  static const std::vector<Command> table = {depth_command(), tokens_command(), ar_command(), acoustic_command(),
                                             vocode_command(), generate_command()};
  return table;
}

const Command* find_command(const std::string& name) {
  for (const Command& c : commands())
    if (c.name == name) return &c;
  return nullptr;
}

}  // namespace music3::cli
