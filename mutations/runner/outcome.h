// What one mutation, one verification and one whole run of the battery produced,
// and how a mutation's gate verdicts become its outcome.
// Contract (cargo-mutants / Stryker vocabulary): killed needs a gate that failed;
// a timeout or a crash is never a kill; a build failure is unviable; binaries
// identical to the baseline are equivalent; anything that stopped the battery from
// judging is infra_error. A killed-expected mutation meets its expectation only when
// every gate it lists failed; a survived-expected one only when it survived.
#pragma once
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "mutations/runner/catalogue.h"
#include "mutations/runner/gate_run.h"
#include "mutations/runner/in_diff.h"
#include "mutations/runner/patch.h"

namespace music3::battery {

enum class Outcome { Killed, Survived, Unviable, Timeout, Crashed, Equivalent, InfraError };
const char* outcome_name(Outcome o);
const char* stryker_status(Outcome o);  // Killed, Survived, CompileError, Timeout, RuntimeError, Ignored

// The outcome of gates that all ran on a mutant that built and differs from baseline.
Outcome classify(const std::vector<GateResult>& gates);

struct MutationResult {
  size_t index = 0;
  Mutation mutation;
  TextPosition start, end;  // of `original` in the unmutated file; end exclusive
  Outcome outcome = Outcome::InfraError;
  bool as_expected = false;
  std::string detail;  // why infra_error, or why the expectation was missed
  std::string diff_stat;  // `git diff --stat` of the mutant
  LineChange diff_lines;  // what `git diff --numstat` confirmed
  ProcessResult build;
  bool built = false;
  std::vector<std::string> objects_rebuilt;
  std::map<std::string, std::string> hashes;  // executable -> sha256 of the mutant
  std::vector<GateResult> gates;
  double seconds = 0;
};

// Sets as_expected and, when missed, appends the reason to detail.
void judge_expectation(MutationResult& r);

struct VerifyResult {
  std::string shard;  // "k/n" in a merged report, else ""
  size_t after = 0;   // mutations done before this check
  bool tree_clean = false;  // no tracked file of the worktree differs from HEAD
  bool build_ok = false;
  bool hashes_match = false;
  bool gates_run = false;  // the final check reruns the gates; the ones between stop at the hashes
  bool gates_green = false;
  std::map<std::string, std::string> hashes;
  std::vector<GateResult> gates;  // empty where gates_run is false
  std::string detail;
  double seconds = 0;
  bool ok() const { return tree_clean && build_ok && hashes_match && (!gates_run || gates_green); }
};

struct Provenance {
  std::string revision, date, machine, cxx, nvcc, cmake, ninja, compiler_cache, command, catalogue, label;
  bool cuda = false;
};

// One shard of a merged report (mutation-battery merge): where it came from and how it ended.
struct ShardNote {
  std::string dir, shard, machine, stopped;
  bool void_run = false, complete = false;
  double seconds = 0;
};

struct RunRecord {
  Provenance provenance;
  std::string component;  // --component ("" = all)
  std::string shard;      // "k/n" of --shard ("" = unsharded)
  std::string only;       // --only
  std::optional<InDiff> in_diff;
  std::vector<ShardNote> shards;  // a merged report's shards, in shard order
  std::map<std::string, std::string> baseline_hashes;
  std::vector<GateResult> baseline_gates;
  std::vector<MutationResult> mutations;
  std::vector<VerifyResult> verifications;
  std::map<std::string, std::string> sources;  // file -> unmutated text, for the Stryker report
  std::string stopped;                          // why the run ended early ("" = it ran to the end)
  bool void_run = false;
  bool complete = false;  // the final verification ran (or nothing was selected)
  double seconds = 0;
};

}  // namespace music3::battery
