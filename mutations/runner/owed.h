// `mutation-battery owed`: which catalogued mutations lack a current verdict in the committed battery reports,
// so that a battery run (on this machine, or scripts/gpu-battery on the H200) can be given exactly those ids.
// Contract: a mutation of the chosen label is owed when
//  - no readable report whose label covers it (its own, or "all") judged it;
//  - its newest verdict missed its expectation; or
//  - its catalogue entry changed since that verdict: another file, original or replacement text, or expectation;
//    a changed gate list alone is judged again from the gate verdicts the report recorded, and is current when
//    every listed gate has one and they meet the expectation (a gate the report did not run makes it owed).
// The newest verdict is the one from the report with the latest provenance date (ties: the later folder path). A
// change to a gate's own source is not seen here (`--in-diff` chooses by that). scan_reports() reads every folder
// under `root` that holds a run.json or an outcomes.jsonl, and lists those read_report() refuses (reports from
// before run.json among them), never failing on one; the rest is pure.
#pragma once
#include <string>
#include <vector>

#include "mutations/runner/catalogue.h"
#include "mutations/runner/outcome.h"

namespace music3::battery {

struct RecordedVerdict {
  std::string report;  // the report folder
  std::string date;    // its provenance date (ISO 8601)
  std::string label;   // its provenance label: cpu, gpu or all
  MutationResult result;
};

struct ReportScan {
  std::vector<RecordedVerdict> verdicts;
  std::vector<std::string> unreadable;  // "FOLDER: why", for each report folder read_report() refused
  size_t reports_read = 0;
};
ReportScan scan_reports(const std::string& root);

struct OwedMutation {
  std::string id, label;
  std::string reason;       // no verdict / missed its expectation / changed since
  std::string last_report;  // the newest verdict's folder, "" when never judged
  // The components whose set-up steps its gates need (catalogue order; empty: none), so that a GPU battery call can
  // take mutations of one set-up together: a call that needs the pipeline oracle spends minutes on it before its
  // first verdict (session 35 lost a call that way).
  std::vector<std::string> setups;
};

struct OwedSummary {
  size_t catalogued = 0;  // mutations of the label
  std::vector<OwedMutation> owed;
};
// label: "cpu", "gpu", or "" for both.
OwedSummary owed_mutations(const Catalogue& c, const std::vector<RecordedVerdict>& verdicts, const std::string& label);

// mutation-battery owed [--repo DIR] [--catalogue PATH] [--reports DIR] [--label cpu|gpu] [--json]: prints the owed
// mutations and their ids as one --only list, and as one list per set-up they need; exit 0 when none is owed, 2 when
// some are (exit_code.h).
int run_owed(const std::vector<std::string>& args);

}  // namespace music3::battery
