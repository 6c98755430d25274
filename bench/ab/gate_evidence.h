// Gate evidence for the A/B runner: a speed verdict is given only for binaries whose
// correctness gates passed.
// A gate record (JSON, schema "music3-gates/1") is written by `ab-bench gates` or by the
// runner's --gates-cmd: the command, its exit status, ctest's counts when its output
// carries them, the tail of the output, and the sha256 of every binary the gates vouch
// for (the build's binaries, hashed when the gates ran).
// Contract: a record passes only when its command exited 0, no test failed, was skipped
// or did not run, and (when the output is ctest's) at least one test ran: ctest's
// "No tests were found" fails.
// gate_status_for() passes a binary only when some record that passed lists its sha256;
// it says which, or why not (no record lists it, or the record that lists it failed).
// Reading a malformed record throws std::runtime_error naming the file and the field.
#pragma once
#include <map>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

namespace music3::bench {

struct GateRecord {
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
void judge_gate_output(GateRecord& r, const std::string& output);
GateRecord run_gates(const std::string& command, const std::string& cwd, const std::vector<std::string>& binaries,
                     const std::string& git_rev);

nlohmann::json to_json(const GateRecord& r);
GateRecord gate_record_from_json(const nlohmann::json& j, const std::string& source);
GateRecord read_gate_record(const std::string& path);
void write_gate_record(const GateRecord& r, const std::string& path);

struct GateStatus {
  bool passed = false;
  std::string detail;
};
GateStatus gate_status_for(const std::vector<GateRecord>& records, const std::string& sha256);

}  // namespace music3::bench
