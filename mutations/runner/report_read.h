// Reading a battery report folder back into the RunRecord that wrote it (the inverse of reports.h's
// run.json, mutants.json, outcomes.jsonl and mutation.json), for `mutation-battery merge`.
// Contract: read_report() throws ReportDirError naming the folder and the file when one is missing or
// is not what the battery writes; a mutation's start and end come from the source text its
// mutation.json carries, exactly as the run computed them. Pure function of the files: thread-safe.
#pragma once
#include <string>

#include "mutations/runner/outcome.h"

namespace music3::battery {

struct ReadReport {
  RunRecord run;                         // the judged mutations in run.mutations
  std::vector<MutationResult> planned;  // mutants.json: every planned mutation, judged or not
  bool has_baseline = false;            // outcomes.jsonl holds the baseline line
};
ReadReport read_report(const std::string& dir);

}  // namespace music3::battery
