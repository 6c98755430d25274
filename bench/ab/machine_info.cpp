#include "bench/ab/machine_info.h"

#include <ctime>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

#include "bench/ab/shell.h"

namespace music3::bench {
namespace {

std::string trim(const std::string& s) {
  const auto b = s.find_first_not_of(" \t\r\n");
  if (b == std::string::npos) return "";
  return s.substr(b, s.find_last_not_of(" \t\r\n") - b + 1);
}

std::string utc_format(const char* fmt) {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, fmt, &tm);
  return buf;
}

}  // namespace

nlohmann::json gpu_state() {
  ShellResult r;
  try {
    r = run_shell("nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem --format=csv,noheader");
  } catch (const std::exception& e) {
    return {{"available", false}, {"why", e.what()}};
  }
  if (r.exit_code != 0)
    return {{"available", false}, {"why", "nvidia-smi exited " + std::to_string(r.exit_code) + ": " + trim(tail_chars(r.output, 300))}};
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

nlohmann::json cpu_info() {
  std::ifstream f("/proc/cpuinfo");
  std::string model = "unknown";
  for (std::string line; std::getline(f, line);)
    if (line.rfind("model name", 0) == 0) {
      model = trim(line.substr(line.find(':') + 1));
      break;
    }
  return {{"model", model}, {"cores", std::thread::hardware_concurrency()}};
}

std::string git_revision(const std::string& repo) {
  try {
    const ShellResult head = run_shell("git -C " + shell_quote(repo) + " rev-parse HEAD 2>/dev/null", false);
    if (head.exit_code != 0) return "unknown";
    const ShellResult status = run_shell("git -C " + shell_quote(repo) + " status --porcelain --untracked-files=no 2>/dev/null", false);
    return trim(head.output) + (status.exit_code == 0 && !trim(status.output).empty() ? "+dirty" : "");
  } catch (const std::exception&) {
    return "unknown";
  }
}

std::string utc_now_iso8601() { return utc_format("%Y-%m-%dT%H:%M:%SZ"); }
std::string utc_date() { return utc_format("%Y-%m-%d"); }

}  // namespace music3::bench
