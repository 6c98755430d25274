#include "tools/provenance.h"

#include <ctime>
#include <fstream>
#include <thread>

namespace music3::tools {

std::string utc_now(const char* strftime_format) {
  const std::time_t t = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&t, &tm);
  char buf[64];
  std::strftime(buf, sizeof buf, strftime_format, &tm);
  return buf;
}

std::string cpu_model() {
  std::ifstream in("/proc/cpuinfo");
  for (std::string line; std::getline(in, line);)
    if (line.rfind("model name", 0) == 0) {
      const size_t colon = line.find(':');
      const size_t start = line.find_first_not_of(" \t", colon + 1);
      return start == std::string::npos ? "unknown CPU" : line.substr(start);
    }
  return "unknown CPU";
}

unsigned logical_cores() { return std::thread::hardware_concurrency(); }

}  // namespace music3::tools
