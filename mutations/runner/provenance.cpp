#include "mutations/runner/provenance.h"

#include <sys/utsname.h>

#include <fstream>
#include <sstream>

#include "tools/provenance.h"

namespace music3::battery {
namespace {

std::string first_line(const std::string& s) { return s.substr(0, s.find('\n')); }

std::string last_line(std::string s) {
  while (!s.empty() && s.back() == '\n') s.pop_back();
  size_t nl = s.rfind('\n');
  return nl == std::string::npos ? s : s.substr(nl + 1);
}

// `tool args` output through pick(), or why it could not be had.
template <class Pick>
std::string ask(const std::vector<std::string>& argv, Pick pick) {
  try {
    Captured c = capture(argv, "");
    if (c.result.ok()) return pick(c.out);
    return "unavailable (" + join_command(argv) + ": " + c.result.describe() + ")";
  } catch (const Interrupted&) {
    throw;
  } catch (const std::exception& e) {
    return std::string("unavailable (") + e.what() + ")";
  }
}

std::string cmake_cache_value(const std::string& build_dir, const std::string& key) {
  std::ifstream in(build_dir + "/CMakeCache.txt");
  for (std::string line; std::getline(in, line);)
    if (line.rfind(key + ":", 0) == 0) return line.substr(line.find('=') + 1);
  return "";
}

}  // namespace

Provenance collect_provenance(const BuildDir& b, const std::string& revision) {
  Provenance p;
  p.revision = revision;
  p.date = tools::utc_now_iso8601();
  utsname u{};
  uname(&u);
  std::ostringstream m;
  m << u.nodename << ", " << u.sysname << " " << u.release << " " << u.machine << ", " << tools::cpu_model() << " ("
    << tools::logical_cores() << " logical cores)";
  if (b.cuda)
    m << ", GPU: "
      << ask({"nvidia-smi", "--query-gpu=name,driver_version", "--format=csv,noheader"},
             [](const std::string& s) { return last_line(s); });
  p.machine = m.str();
  std::string cxx = cmake_cache_value(b.dir, "CMAKE_CXX_COMPILER");
  p.cxx = cxx + ": " + ask({cxx, "--version"}, first_line);
  p.cuda = b.cuda;
  if (b.cuda) {
    std::string nvcc = cmake_cache_value(b.dir, "CMAKE_CUDA_COMPILER");
    p.nvcc = nvcc + ": " + ask({nvcc, "--version"}, last_line);
  } else {
    p.nvcc = "not used (CPU-only build); on PATH: " + ask({"nvcc", "--version"}, last_line);
  }
  p.cmake = ask({"cmake", "--version"}, first_line);
  p.ninja = ask({"ninja", "--version"}, first_line);
  p.compiler_cache = b.compiler_cache.empty()
                         ? "none (ccache not on PATH, or MUSIC3_BATTERY_CCACHE=0)"
                         : b.compiler_cache + ": " + ask({b.compiler_cache, "--version"}, first_line) +
                               ", CCACHE_BASEDIR=" + b.cache_base;
  return p;
}

}  // namespace music3::battery
