// The battery's output directory, written as the run goes (cargo-mutants style):
//   mutants.json       the selected mutations, written before any is tested
//   outcomes.jsonl     one JSON object per line: the baseline, each mutation, each verification
//   diff/<id>.diff     the patch of each mutation
//   log/<name>.log     everything the build and the gates printed (baseline, each
//                      mutation, each verification)
//   run.json           what was asked and how the run ended: provenance, selection (component,
//                      label, shard, --in-diff choice), stopped / void / complete, run time
//   summary.md         the table and the provenance (hashes, compilers, revision, machine)
//   mutation.json      the Stryker mutation-testing-report-schema (schemaVersion "1")
//   mutation.html      a self-contained page (no script, no network: the GPU box has none)
//                      with the outcome table, linking each mutation's diff and log
// Contract: run.json, summary.md, mutation.json and mutation.html are rewritten after every
// mutation, so an interrupted run still leaves a readable partial report. A previous
// report in the same directory (it holds mutants.json) is moved to <dir>.old, never
// mixed with the new one; any other non-empty directory is refused (ReportDirError).
// Two runs into one directory: the constructor takes an exclusive lock on <dir>.lock
// (flock, released when the process ends, whatever the way) and refuses, naming the
// holder's pid, when another run holds it. Thread-safety: one owner, not thread-safe.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mutations/runner/outcome.h"

namespace music3::battery {

class ReportDirError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

nlohmann::json to_json(const GateResult& g);
nlohmann::json to_json(const MutationResult& r);
nlohmann::json to_json(const VerifyResult& v);
nlohmann::json to_json(const Provenance& p);
nlohmann::json to_json(const InDiff& d);
nlohmann::json run_json(const RunRecord& run);
nlohmann::json stryker_report(const RunRecord& run);
std::string summary_markdown(const RunRecord& run);

class Reports {
 public:
  explicit Reports(std::string dir);  // locks, then creates the directory (see the contract above)
  ~Reports();
  Reports(const Reports&) = delete;
  Reports& operator=(const Reports&) = delete;

  const std::string& dir() const { return dir_; }
  std::string log_path(const std::string& name) const { return dir_ + "/log/" + name + ".log"; }
  void write_diff(const std::string& id, const std::string& diff) const;

  void write_mutants(const std::vector<MutationResult>& planned) const;
  void append_outcome(const nlohmann::json& line) const;
  void write_final(const RunRecord& run) const;  // summary.md, mutation.json, mutation.html

 private:
  std::string dir_;
  int lock_fd_ = -1;
};

// The offline HTML page of a run (see the contract above).
std::string report_html(const RunRecord& run);

}  // namespace music3::battery
