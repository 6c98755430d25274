// Running one gate executable and judging it from its exit status and its gtest JSON.
// Contract: the verdict is Timeout when the time limit ran out (never a kill),
// Crashed when a signal ended it, Skipped on exit 77 (never a pass), Passed on exit 0
// and Failed on any other exit. Failing cases ("Suite.Test") and the failed-assertion
// count come from the gtest JSON file when the gate wrote one.
#pragma once
#include <string>
#include <vector>

#include "mutations/runner/build.h"
#include "mutations/runner/catalogue.h"

namespace music3::battery {

enum class GateVerdict { Passed, Failed, Skipped, Timeout, Crashed };
const char* verdict_name(GateVerdict v);

struct GateResult {
  std::string gate;
  GateVerdict verdict = GateVerdict::Crashed;
  ProcessResult process;
  double timeout_s = 0;
  int tests_run = 0;  // from the JSON; 0 when it wrote none
  std::vector<std::string> failing_cases;
  int failed_assertions = 0;
};

// Reads a gtest --gtest_output=json file into r (tests_run, failing_cases,
// failed_assertions). Returns false when the file is missing or unreadable.
bool read_gtest_json(const std::string& path, GateResult& r);

// Runs one gate binary in the build directory with its own TMPDIR (a fresh folder in the build directory, removed
// when the gate ends): what a failing gate keeps for diagnosis (gate_depth_oracle_regen keeps its 122 MB
// regeneration) would otherwise pile up in /tmp over a battery, one copy per killed mutation.
GateResult run_gate(const Gate& gate, const BuildDir& b, double timeout_s, const std::string& json_path,
                    const std::string& log);

}  // namespace music3::battery
