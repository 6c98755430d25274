// The `music3` command: dispatches sub-commands and turns every error into a
// message naming the problem and a non-zero exit code (never a crash).
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "engine/cli/args.h"
#include "engine/cli/depth_command.h"
#include "engine/cli/tokens_command.h"
#include "engine/runtime/arm.h"

int main(int argc, char** argv) {
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    std::cout << "music3: MiniMax-Music3 inference engine\n" << music3::cli::kDepthUsage << music3::cli::kTokensUsage;
    return args.empty() ? 2 : 0;
  }
  const std::string cmd = args[0];
  args.erase(args.begin());
  try {
    if (cmd == "depth") return music3::cli::run_depth_command(args);
    if (cmd == "tokens") return music3::cli::run_tokens_command(args);
    std::cerr << "music3: unknown command '" << cmd << "'\n" << music3::cli::kDepthUsage << music3::cli::kTokensUsage;
    return 2;
  } catch (const music3::cli::UsageError& e) {
    std::cerr << "music3 " << cmd << ": " << e.what() << "\n"
              << (cmd == "tokens" ? music3::cli::kTokensUsage : music3::cli::kDepthUsage);
    return 2;
  } catch (const music3::runtime::ArmRefused& e) {
    std::cerr << "music3 " << cmd << ": " << e.what() << "\n";
    return 3;
  } catch (const std::exception& e) {
    std::cerr << "music3 " << cmd << ": error: " << e.what() << "\n";
    return 2;
  }
}
