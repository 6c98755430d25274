// The `music3` command: dispatches through the command table (command.h) and turns
// every error into a message naming the problem and an exit code of the shared table
// (engine/core/exit_code.h), never a crash.
#include <exception>
#include <iostream>
#include <string>
#include <vector>

#include "engine/cli/args.h"
#include "engine/cli/command.h"
#include "engine/core/exit_code.h"
#include "engine/runtime/arm.h"

namespace {

void print_overview(std::ostream& out) {
  out << "music3: MiniMax-Music3 inference engine\ncommands:\n";
  for (const auto& c : music3::cli::commands()) out << "  " << c.name << "  " << c.summary << "\n";
  out << "music3 <command> --help for its usage\n" << music3::exit_code::kTable;
}

}  // namespace

int main(int argc, char** argv) {
  namespace ec = music3::exit_code;
  std::vector<std::string> args(argv + 1, argv + argc);
  if (args.empty() || args[0] == "--help" || args[0] == "-h") {
    print_overview(args.empty() ? std::cerr : std::cout);
    return args.empty() ? ec::kUsage : ec::kOk;
  }
  const std::string name = args[0];
  args.erase(args.begin());
  const music3::cli::Command* cmd = music3::cli::find_command(name);
  if (!cmd) {
    std::cerr << "music3: unknown command '" << name << "'\n";
    print_overview(std::cerr);
    return ec::kUsage;
  }
  for (const auto& a : args)
    if (a == "--help" || a == "-h") {
      std::cout << cmd->usage << music3::exit_code::kTable;
      return ec::kOk;
    }
  try {
    return cmd->run(args);
  } catch (const music3::cli::UsageError& e) {
    std::cerr << "music3 " << name << ": " << e.what() << "\n" << cmd->usage;
    return ec::kUsage;
  } catch (const music3::runtime::ArmRefused& e) {
    std::cerr << "music3 " << name << ": " << e.what() << "\n";
    return ec::kDeviceRefused;
  } catch (const std::exception& e) {
    std::cerr << "music3 " << name << ": error: " << e.what() << "\n";
    return ec::kBadInput;
  }
}
