// The `music3` command: dispatches sub-commands and turns every error into a
// message naming the problem and a non-zero exit code (never a crash).
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "engine/cli/ar_command.h"
#include "engine/cli/args.h"
#include "engine/cli/depth_command.h"
#include "engine/cli/tokens_command.h"
#include "engine/runtime/arm.h"

namespace {
struct Command {
  const char* name;
  const char* usage;
  int (*run)(const std::vector<std::string>&);
};
const Command kCommands[] = {{"depth", music3::cli::kDepthUsage, music3::cli::run_depth_command},
                             {"tokens", music3::cli::kTokensUsage, music3::cli::run_tokens_command},
                             {"ar", music3::cli::kArUsage, music3::cli::run_ar_command}};
std::string all_usage() {
  std::string s;
  for (const auto& c : kCommands) s += c.usage;
  return s;
}
}  // namespace

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    std::cout << "music3: MiniMax-Music3 inference engine\n" << all_usage();
    return args.empty() ? 2 : 0;
  }
  const std::string cmd = args[0];
  args.erase(args.begin());
  const Command* command = nullptr;
  for (const auto& c : kCommands)
    if (cmd == c.name) command = &c;
  if (!command) {
    std::cerr << "music3: unknown command '" << cmd << "'\n" << all_usage();
    return 2;
  }
  for (const auto& a : args)
    if (a == "--help" || a == "-h") {
      std::cout << command->usage;
      return 0;
    }
  try {
    return command->run(args);
  } catch (const music3::cli::UsageError& e) {
    std::cerr << "music3 " << cmd << ": " << e.what() << "\n" << command->usage;
    return 2;
  } catch (const music3::runtime::ArmRefused& e) {
    std::cerr << "music3 " << cmd << ": " << e.what() << "\n";
    return 3;
  } catch (const std::exception& e) {
    std::cerr << "music3 " << cmd << ": error: " << e.what() << "\n";
    return 2;
  }
}
