// mutation-battery: see mutations/README.md and battery.h for the contract.
#include <csignal>
#include <cstdio>
#include <string>
#include <vector>

#include "mutations/runner/battery.h"
#include "mutations/runner/in_diff.h"
#include "mutations/runner/merge.h"
#include "mutations/runner/options.h"
#include "mutations/runner/owed.h"
#include "mutations/runner/build.h"
#include "mutations/runner/reports.h"

using namespace music3::battery;

namespace {

// mutation-battery merge OUT_DIR SHARD_DIR...
int merge_main(int argc, char** argv) {
  std::vector<std::string> args(argv + 2, argv + argc);
  if (!args.empty() && (args[0] == "--help" || args[0] == "-h")) {
    std::fputs(kUsage, stdout);
    return kExitAsExpected;
  }
  if (args.size() < 2) throw UsageError("merge wants OUT_DIR and at least one SHARD_DIR");
  for (const auto& a : args)
    if (a.rfind("-", 0) == 0) throw UsageError("merge takes no option \"" + a + "\"");
  std::string command = "mutation-battery merge";
  for (const auto& a : args) command += " " + join_command({a});
  return run_merge(args[0], {args.begin() + 1, args.end()}, command);
}

}  // namespace

int main(int argc, char** argv) {
  install_interrupt_handlers();
  BatteryOptions o;
  try {
    if (argc > 1 && std::string(argv[1]) == "merge") return merge_main(argc, argv);
    if (argc > 1 && std::string(argv[1]) == "owed") return run_owed({argv + 2, argv + argc});
    if (!parse_options(argc, argv, o)) {
      std::fputs(kUsage, stdout);
      return kExitAsExpected;
    }
    return run_battery(o);
  } catch (const Interrupted& e) {
    // The patched file is restored and the worktree gone by now (destructors ran);
    // die of the same signal so that the caller sees how the run ended.
    std::fprintf(stderr, "mutation-battery: %s; the patched file was restored, the worktree %s\n", e.what(),
                 o.keep_worktree ? "kept (--keep-worktree)" : "removed");
    std::signal(e.signal(), SIG_DFL);
    std::raise(e.signal());
    return 128 + e.signal();
  } catch (const UsageError& e) {
    std::fprintf(stderr, "mutation-battery: %s\n%s", e.what(), kUsage);
    return kExitUsage;
  } catch (const ReportDirError& e) {
    std::fprintf(stderr, "mutation-battery: %s\n", e.what());
    return kExitBadInput;
  } catch (const MergeError& e) {
    std::fprintf(stderr, "mutation-battery merge: refused: %s\n", e.what());
    return kExitBadInput;
  } catch (const InDiffError& e) {
    std::fprintf(stderr, "mutation-battery: %s\n", e.what());
    return kExitBadInput;
  } catch (const CatalogueError& e) {
    std::fprintf(stderr, "mutation-battery: %s\n", e.what());
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mutation-battery: infrastructure error: %s\n", e.what());
    return kExitSoftware;
  }
}
