#include "bench/ab/machine_info.h"

#include <ctime>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "tools/process.h"

namespace music3::bench {
namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

}  // namespace

nlohmann::json gpu_state() {
  tools::ShellResult r;
  try {
    r = tools::capture_shell("nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader");
  } catch (const std::exception& e) {
    return {{"available", false}, {"why", e.what()}};
  }
  if (r.exit_code != 0)
    return {{"available", false}, {"why", "nvidia-smi exited " + std::to_string(r.exit_code) + ": " + trim(tools::tail_chars(r.output, 300))}};
  nlohmann::json gpus = nlohmann::json::array();
  std::istringstream lines(r.output);
  for (std::string line; std::getline(lines, line);) {
    if (trim(line).empty()) continue;
    std::vector<std::string> f;
    std::istringstream fields(line);
    for (std::string x; std::getline(fields, x, ',');) f.push_back(trim(x));
    if (f.size() != 4) return {{"available", false}, {"why", "unexpected nvidia-smi line: " + line}};
    gpus.push_back({{"name", f[0]}, {"driver", f[1]}, {"clocks_sm", f[2]}, {"clocks_mem", f[3]}});
  }
  return {{"available", !gpus.empty()}, {"gpus", gpus}, {"read_at", utc_now_iso8601()}};
}

nlohmann::json cpu_info() { return {{"model", tools::cpu_model()}, {"cores", tools::logical_cores()}}; }

std::string git_revision(const std::string& repo) {
  try {
    const tools::ShellResult head = tools::capture_shell("git -C " + tools::shell_quote(repo) + " rev-parse HEAD 2>/dev/null", false);
    if (head.exit_code != 0) return "unknown";
    const tools::ShellResult status = tools::capture_shell("git -C " + tools::shell_quote(repo) + " status --porcelain --untracked-files=no 2>/dev/null", false);
    return trim(head.output) + (status.exit_code == 0 && !trim(status.output).empty() ? "+dirty" : "");
  } catch (const std::exception&) {
    return "unknown";
  }
}


}  // namespace music3::bench
