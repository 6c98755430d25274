#include "bench/ab/gate_evidence.h"

#include <fstream>
#include <regex>
#include <stdexcept>

#include "bench/ab/machine_info.h"
#include "tools/process.h"
#include "engine/io/sha256.h"

namespace music3::bench {
namespace {
constexpr const char* kSchema = "music3-gates/1";
constexpr size_t kTailChars = 6000;
}  // namespace

void judge_gate_output(GateEvidence& r, const std::string& output) {
  std::smatch m;
  // CTest 3.x: "100% tests passed, 0 tests failed out of 18"; CTest 4.x: "100% tests passed out of 18".
  static const std::regex summary(R"((\d+)% tests passed(?:, (\d+) tests? failed)? out of (\d+))");
  static const std::regex skipped(R"(\*\*\*Skipped|\*\*\*Not Run)");
  if (std::regex_search(output, m, summary)) {
    r.tests_failed = m[2].matched ? std::stoi(m[2]) : 0;
    r.tests_total = std::stoi(m[3]);
    r.tests_skipped = static_cast<int>(std::distance(std::sregex_iterator(output.begin(), output.end(), skipped),
                                                     std::sregex_iterator()));
  } else if (output.find("No tests were found") != std::string::npos) {
    r.tests_total = r.tests_failed = r.tests_skipped = 0;
  }
  r.output_tail = tools::tail_chars(output, kTailChars);
  // No summary line means no proof that any test ran: never a pass.
  r.passed = r.exit_code == 0 && r.tests_total > 0 && r.tests_failed == 0 && r.tests_skipped == 0;
}

GateEvidence run_gates(const std::string& command, const std::string& cwd, const std::vector<std::string>& binaries,
                     const std::string& git_rev) {
  GateEvidence r;
  r.command = command;
  r.cwd = cwd;
  r.git_rev = git_rev;
  r.when = utc_now_iso8601();
  r.source = "run by ab-bench";
  for (const auto& b : binaries) r.binaries[b] = io::sha256_file(b);
  const tools::ShellResult out = tools::capture_shell("cd " + tools::shell_quote(cwd) + " && " + command);
  r.exit_code = out.exit_code;
  judge_gate_output(r, out.output);
  return r;
}

nlohmann::json to_json(const GateEvidence& r) {
  return {{"schema", kSchema},         {"command", r.command},         {"cwd", r.cwd},
          {"exit_code", r.exit_code},  {"tests_total", r.tests_total}, {"tests_failed", r.tests_failed},
          {"tests_skipped", r.tests_skipped}, {"passed", r.passed},   {"binaries", r.binaries},
          {"git_rev", r.git_rev},      {"when", r.when},               {"output_tail", r.output_tail}};
}

GateEvidence gate_evidence_from_json(const nlohmann::json& j, const std::string& source) {
  auto need = [&](const char* key) -> const nlohmann::json& {
    if (!j.is_object() || !j.contains(key)) throw std::runtime_error("gate record " + source + ": missing '" + key + "'");
    return j.at(key);
  };
  try {
    if (need("schema").get<std::string>() != kSchema)
      throw std::runtime_error("gate record " + source + ": schema '" + j.at("schema").get<std::string>() +
                               "' is not " + kSchema);
    GateEvidence r;
    r.command = need("command").get<std::string>();
    r.cwd = j.value("cwd", "");
    r.exit_code = need("exit_code").get<int>();
    r.tests_total = j.value("tests_total", -1);
    r.tests_failed = j.value("tests_failed", -1);
    r.tests_skipped = j.value("tests_skipped", -1);
    r.passed = need("passed").get<bool>();
    r.binaries = need("binaries").get<std::map<std::string, std::string>>();
    r.git_rev = j.value("git_rev", "");
    r.when = j.value("when", "");
    r.output_tail = j.value("output_tail", "");
    r.source = source;
    return r;
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error("gate record " + source + ": " + e.what());
  }
}

GateEvidence read_gate_evidence(const std::string& path) {
  std::ifstream f(path);
  if (!f) throw std::runtime_error("gate record " + path + ": cannot open");
  nlohmann::json j;
  try {
    f >> j;
  } catch (const nlohmann::json::exception& e) {
    throw std::runtime_error("gate record " + path + ": not JSON: " + e.what());
  }
  return gate_evidence_from_json(j, path);
}

void write_gate_evidence(const GateEvidence& r, const std::string& path) {
  std::ofstream f(path);
  if (!(f << to_json(r).dump(2) << "\n")) throw std::runtime_error("gate record " + path + ": cannot write");
}

GateStatus gate_status_for(const std::vector<GateEvidence>& records, const std::string& sha256) {
  std::string failed_in;
  for (const auto& r : records)
    for (const auto& [path, sha] : r.binaries) {
      if (sha != sha256) continue;
      if (r.passed) return {true, "gates passed (" + r.source + ": '" + r.command + "')"};
      failed_in = r.source + ": '" + r.command + "' exited " + std::to_string(r.exit_code) + ", " +
                  std::to_string(r.tests_failed) + " failed, " + std::to_string(r.tests_skipped) + " skipped of " +
                  std::to_string(r.tests_total);
    }
  if (!failed_in.empty()) return {false, "gates failed (" + failed_in + ")"};
  return {false, records.empty() ? "no gate record was given" : "no gate record lists binary sha256 " + sha256};
}

}  // namespace music3::bench
