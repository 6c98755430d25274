// Gate evidence for the A/B runner: a speed verdict is given only for binaries whose
// correctness gates passed.
// Gate evidence (JSON, schema "music3-gates/1"; not to be confused with the gates' own
// per-statistic records, gates/lib/gate_record.h) is written by `ab-bench gates` or by the
// runner's --gates-cmd: the command, its exit status, ctest's counts when its output
// carries them, the tail of the output, and the sha256 of every binary the gates vouch
// for (the build's binaries, hashed when the gates ran).
// Contract: a record passes only when its command exited 0, no test failed, was skipped
// or did not run, and (when the output is ctest's) at least one test ran: ctest's
// "No tests were found" fails.
// gate_status_for() passes a binary only when some record that passed lists its sha256;
// it says which, or why not (no record lists it, or the record that lists it failed).
// Reading a malformed record throws std::runtime_error naming the file and the field.
// Thread-safety: pure functions apart from the files and commands named.
#pragma once
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace music3::bench {

struct GateEvidence {
  std::string command;
  std::string cwd;
  int exit_code = -1;
  int tests_total = -1, tests_failed = -1, tests_skipped = -1;  // -1: not ctest output
  bool passed = false;
  std::map<std::string, std::string> binaries;  // path -> sha256
  std::string git_rev;
  std::string when;
  std::string output_tail;
  std::string source;  // where this record was read from or how it was made
};

// Fills the counts and `passed` from the command's exit code and output.
void judge_gate_output(GateEvidence& r, const std::string& output);
GateEvidence run_gates(const std::string& command, const std::string& cwd, const std::vector<std::string>& binaries,
                     const std::string& git_rev);

nlohmann::json to_json(const GateEvidence& r);
GateEvidence gate_evidence_from_json(const nlohmann::json& j, const std::string& source);
GateEvidence read_gate_evidence(const std::string& path);
void write_gate_evidence(const GateEvidence& r, const std::string& path);

struct GateStatus {
  bool passed = false;
  std::string detail;
};
GateStatus gate_status_for(const std::vector<GateEvidence>& records, const std::string& sha256);

}  // namespace music3::bench
