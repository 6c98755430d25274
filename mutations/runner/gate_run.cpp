#include "mutations/runner/gate_run.h"

#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <stdlib.h>

#include <nlohmann/json.hpp>

namespace music3::battery {

const char* verdict_name(GateVerdict v) {
  switch (v) {
    case GateVerdict::Passed: return "passed";
    case GateVerdict::Failed: return "failed";
    case GateVerdict::Skipped: return "skipped";
    case GateVerdict::Timeout: return "timeout";
    case GateVerdict::Crashed: return "crashed";
  }
  return "?";
}

bool read_gtest_json(const std::string& path, GateResult& r) {
  std::ifstream in(path);
  if (!in) return false;
  nlohmann::json j;
  try {
    j = nlohmann::json::parse(in);
  } catch (const nlohmann::json::parse_error&) {
    return false;
  }
  r.tests_run = j.value("tests", 0);
  for (const auto& suite : j.value("testsuites", nlohmann::json::array())) {
    for (const auto& test : suite.value("testsuite", nlohmann::json::array())) {
      auto failures = test.value("failures", nlohmann::json::array());
      if (failures.empty()) continue;
      r.failing_cases.push_back(suite.value("name", "?") + "." + test.value("name", "?"));
      r.failed_assertions += static_cast<int>(failures.size());
    }
  }
  return true;
}

GateResult run_gate(const Gate& gate, const BuildDir& b, double timeout_s, const std::string& json_path,
                    const std::string& log) {
  std::filesystem::remove(json_path);
  std::vector<std::string> argv{b.executable(gate.executable)};
  argv.insert(argv.end(), gate.args.begin(), gate.args.end());
  argv.push_back("--gtest_output=json:" + json_path);
  {
    std::ofstream l(log, std::ios::app);
    l << "\n$ (cd " << b.dir << " && " << join_command(argv) << ")  # timeout " << timeout_s << " s\n";
  }
  GateResult r;
  r.gate = gate.id;
  r.timeout_s = timeout_s;
  std::string scratch = b.dir + "/gate-tmp-XXXXXX";
  if (!mkdtemp(scratch.data())) throw std::runtime_error("cannot create a temporary directory from " + scratch);
  r.process = run_process({argv, b.dir, {{"MUSIC3_SOURCE_DIR", b.source}, {"TMPDIR", scratch}}, log, timeout_s});
  std::error_code ignored;  // a file the gate left unremovable must not turn its verdict into an error
  std::filesystem::remove_all(scratch, ignored);
  if (r.process.timed_out)
    r.verdict = GateVerdict::Timeout;
  else if (r.process.signal)
    r.verdict = GateVerdict::Crashed;
  else if (r.process.exit_code == 0)
    r.verdict = GateVerdict::Passed;
  else if (r.process.exit_code == 77)
    r.verdict = GateVerdict::Skipped;
  else
    r.verdict = GateVerdict::Failed;
  read_gtest_json(json_path, r);
  return r;
}

}  // namespace music3::battery
