// mutation-battery: see mutations/README.md and battery.h for the contract.
#include <csignal>
#include <cstdio>

#include "mutations/runner/battery.h"
#include "mutations/runner/options.h"
#include "mutations/runner/build.h"
#include "mutations/runner/reports.h"

using namespace music3::battery;

int main(int argc, char** argv) {
  install_interrupt_handlers();
  BatteryOptions o;
  try {
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
  } catch (const CatalogueError& e) {
    std::fprintf(stderr, "mutation-battery: %s\n", e.what());
    return kExitBadInput;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "mutation-battery: infrastructure error: %s\n", e.what());
    return kExitSoftware;
  }
}
