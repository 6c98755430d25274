// The battery: baseline, then per mutation patch → diff check → rebuild → proof of
// rebuild → hashes → gates → restore, with verification builds, all in a worktree.
// Contract: the user's repository is never written except for the worktree entry
// git keeps while the run lasts and the report directory. Exit codes (the shared
// table, engine/core/exit_code.h): 0 every mutation met its expected outcome; 2 at
// least one did not; 4 baseline failure (build, setup, a gate not green, or a clean
// rebuild with other hashes); 1 bad usage; 5 bad catalogue or report folder in use;
// 8 dirty tree; 9 void run (a verification build did not reproduce the baseline hashes
// and green gates, or a restore left the tree dirty); 70 an infrastructure error.
// Interrupted propagates after the patched file is restored and the report saved.
#pragma once
#include <string>

#include "engine/core/exit_code.h"
#include "mutations/runner/catalogue.h"

namespace music3::battery {

enum ExitCode : int {
  kExitAsExpected = exit_code::kOk,
  kExitUnexpected = exit_code::kFoundProblems,
  kExitBaselineFailure = exit_code::kBaselineFailed,
  kExitUsage = exit_code::kUsage,
  kExitBadInput = exit_code::kBadInput,
  kExitDirtyTree = exit_code::kDirtyTree,
  kExitVoid = exit_code::kVoidRun,
  kExitSoftware = exit_code::kSoftware,
};

struct BatteryOptions {
  std::string repo;       // toplevel of the user's repository
  std::string catalogue;  // catalogue path
  std::string out;        // "" = <repo>/reports/mutations/<component or all>/<date>-<rev>-<label>
  Selection selection;
  int jobs = 1;
  int verify_every = 10;  // 0 = only at the end
  // The least time a gate gets: max(this, 5 x its baseline time). A gate that reads large oracle checkpoints can
  // take many times its baseline once the build has pushed them out of the page cache (the CPU battery at a694c27:
  // gate_lm_loader, 0.55 s in the baseline, still loading at 10 s), so the floor is a minute, not 10 s.
  double min_gate_timeout_s = 60;
  bool keep_worktree = false;
  std::string command;  // the command line, for the report
};

int run_battery(const BatteryOptions& o);

}  // namespace music3::battery
