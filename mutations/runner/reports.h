// The battery's output directory, written as the run goes (cargo-mutants style):
//   mutants.json       the selected mutations, written before any is tested
//   outcomes.jsonl     one JSON object per line: the baseline, each mutation, each verification
//   <id>.diff, <id>.log  the patch and everything the build and the gates printed
//   summary.md         the table and the provenance (hashes, compilers, revision, machine)
//   mutation.json      the Stryker mutation-testing-report-schema (schemaVersion "1")
//   mutation.html      that report rendered by the public mutation-testing-elements viewer
// Contract: summary.md, mutation.json and mutation.html are rewritten after every
// mutation, so an interrupted run still leaves a readable partial report. A previous
// report in the same directory (it holds mutants.json) is moved to <dir>.old, never
// mixed with the new one; any other non-empty directory is refused (ReportDirError).
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
nlohmann::json stryker_report(const RunRecord& run);
std::string summary_markdown(const RunRecord& run);

class Reports {
 public:
  explicit Reports(std::string dir);  // creates the directory (see the contract above)

  const std::string& dir() const { return dir_; }
  std::string log_path(const std::string& name) const { return dir_ + "/" + name + ".log"; }
  void write_diff(const std::string& id, const std::string& diff) const;

  void write_mutants(const std::vector<MutationResult>& planned) const;
  void append_outcome(const nlohmann::json& line) const;
  void write_final(const RunRecord& run) const;  // summary.md, mutation.json, mutation.html

 private:
  std::string dir_;
};

}  // namespace music3::battery
