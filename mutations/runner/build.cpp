#include "mutations/runner/build.h"

#include <sys/stat.h>

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <stdexcept>

#include "engine/io/sha256.h"

namespace music3::battery {
namespace {

namespace fs = std::filesystem;

std::string absolute_in(const std::string& dir, const std::string& p) {
  fs::path path(p);
  if (path.is_relative()) path = fs::path(dir) / path;
  return path.lexically_normal().string();
}

}  // namespace

std::string oracle_python(const std::string& repo) {
  if (const char* given = std::getenv("MUSIC3_ORACLE_PYTHON"); given && *given) return given;
  const std::string venv = repo + "/.venv/bin/python";
  return fs::exists(venv) ? venv : "";
}

std::string find_compiler_cache() {
  if (const char* v = std::getenv("MUSIC3_BATTERY_CCACHE"); v && std::string(v) == "0") return "";
  Captured c = capture({"sh", "-c", "command -v ccache"}, "");
  std::string path = c.out.substr(0, c.out.find('\n'));
  return c.result.ok() && !path.empty() ? path : "";
}

void configure(const BuildDir& b, const std::string& log) {
  std::vector<std::string> argv{"cmake", "-G", "Ninja", "-S", b.source, "-B", b.dir, "-DCMAKE_BUILD_TYPE=Release",
                                std::string("-DMUSIC3_CUDA=") + (b.cuda ? "ON" : "OFF")};
  if (!b.oracle_python.empty()) argv.push_back("-DMUSIC3_ORACLE_PYTHON=" + b.oracle_python);
  if (!b.compiler_cache.empty())
    for (const char* lang : {"C", "CXX", "CUDA"})
      argv.push_back(std::string("-DCMAKE_") + lang + "_COMPILER_LAUNCHER=" + b.compiler_cache);
  ProcessResult r = run_process({argv, "", {}, log, 0});
  if (!r.ok()) throw std::runtime_error("cmake configure of " + b.source + " failed (" + r.describe() + "), see " + log);
}

ProcessResult build_targets(const BuildDir& b, const std::vector<std::string>& targets, const std::string& log) {
  std::vector<std::string> argv{"ninja", "-C", b.dir, "-j", std::to_string(b.jobs)};
  argv.insert(argv.end(), targets.begin(), targets.end());
  std::vector<std::pair<std::string, std::string>> env;
  if (!b.compiler_cache.empty()) env.emplace_back("CCACHE_BASEDIR", b.cache_base);
  return run_process({argv, "", env, log, 0});
}

// `ninja -t deps` prints, per object, "<object>: #deps N, deps mtime M (VALID)" and
// then one indented dependency per line.
std::vector<std::string> objects_depending_on(const BuildDir& b, const std::string& source_file) {
  std::string want = fs::path(source_file).lexically_normal().string();
  std::string want_name = fs::path(want).filename().string();
  std::istringstream in(capture_ok({"ninja", "-C", b.dir, "-t", "deps"}, ""));
  std::vector<std::string> out;
  std::string object;
  bool matched = false;
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    if (line[0] != ' ') {
      object = absolute_in(b.dir, line.substr(0, line.find(": #deps")));
      matched = false;
      continue;
    }
    if (matched) continue;
    std::string dep = line.substr(line.find_first_not_of(' '));
    if (dep.size() < want_name.size() || dep.compare(dep.size() - want_name.size(), want_name.size(), want_name) != 0)
      continue;
    if (absolute_in(b.dir, dep) == want) {
      out.push_back(object);
      matched = true;
    }
  }
  return out;
}

std::vector<std::string> target_inputs(const BuildDir& b, const std::vector<std::string>& targets) {
  std::vector<std::string> cmd{"ninja", "-C", b.dir, "-t", "inputs"};
  cmd.insert(cmd.end(), targets.begin(), targets.end());
  std::istringstream in(capture_ok(cmd, ""));
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.push_back(absolute_in(b.dir, line));
  return out;
}

std::map<std::string, int64_t> mtimes_ns(const std::vector<std::string>& paths) {
  std::map<std::string, int64_t> out;
  for (const auto& p : paths) {
    struct stat st {};
    out[p] = stat(p.c_str(), &st) == 0 ? int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec : -1;
  }
  return out;
}

std::map<std::string, std::string> hash_executables(const BuildDir& b, const std::vector<std::string>& names) {
  std::map<std::string, std::string> out;
  for (const auto& n : names) out[n] = music3::io::sha256_file(b.executable(n));
  return out;
}

}  // namespace music3::battery
