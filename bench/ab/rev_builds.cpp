#include "bench/ab/rev_builds.h"

#include <filesystem>
#include <fstream>
#include <ostream>
#include <stdexcept>

#include "tools/process.h"

namespace music3::bench {
namespace {

std::string trim(const std::string& s) {
  const auto e = s.find_last_not_of(" \t\r\n");
  return e == std::string::npos ? "" : s.substr(0, e + 1);
}

void step(const std::string& rev, const std::string& what, const std::string& cmd, const std::string& log) {
  const tools::ShellResult r = tools::capture_shell(cmd);
  std::ofstream(log, std::ios::app) << "$ " << cmd << "\n" << r.output << "\n[exit " << r.exit_code << "]\n";
  if (r.exit_code != 0)
    throw std::runtime_error("revision " + rev + ": " + what + " failed (exit " + std::to_string(r.exit_code) +
                             ", log " + log + "):\n" + tools::tail_chars(r.output, 2000));
}

}  // namespace

RevBuild build_revision(const std::string& repo, const std::string& rev, const std::string& work_dir,
                        const std::string& cmake_args, const std::string& targets, std::ostream& progress) {
  namespace fs = std::filesystem;
  RevBuild b;
  b.rev = rev;
  const tools::ShellResult resolved =
      tools::capture_shell("git -C " + tools::shell_quote(repo) + " rev-parse --verify " + tools::shell_quote(rev + "^{commit}") + " 2>&1", false);
  if (resolved.exit_code != 0)
    throw std::runtime_error("revision " + rev + ": not a commit of " + repo + ": " + trim(resolved.output));
  b.commit = trim(resolved.output);
  const std::string id = b.commit.substr(0, 12);
  fs::create_directories(work_dir);
  b.src_dir = fs::absolute(fs::path(work_dir) / ("src-" + id)).string();
  b.build_dir = fs::absolute(fs::path(work_dir) / ("build-" + id)).string();
  b.music3 = b.build_dir + "/bin/music3";
  const std::string log = fs::absolute(fs::path(work_dir) / (id + ".log")).string();
  const fs::path exported = fs::path(b.src_dir) / ".music3-export-complete";

  if (!fs::exists(exported)) {
    progress << "revision " << rev << " (" << id << "): exporting the tree\n" << std::flush;
    fs::remove_all(b.src_dir);
    fs::create_directories(b.src_dir);
    step(rev, "git archive", "git -C " + tools::shell_quote(repo) + " archive --format=tar " + tools::shell_quote(b.commit) +
                                 " | tar -x -C " + tools::shell_quote(b.src_dir), log);
    std::ofstream(exported) << b.commit << "\n";
  }
  progress << "revision " << rev << " (" << id << "): configuring and building " << (targets.empty() ? "all" : targets)
           << "\n" << std::flush;
  step(rev, "cmake configure", "cmake -G Ninja -S " + tools::shell_quote(b.src_dir) + " -B " + tools::shell_quote(b.build_dir) +
                                   " -DCMAKE_BUILD_TYPE=Release " + cmake_args, log);
  step(rev, "build", "cmake --build " + tools::shell_quote(b.build_dir) + (targets.empty() ? "" : " --target " + targets), log);
  if (!fs::exists(b.music3)) throw std::runtime_error("revision " + rev + ": the build has no " + b.music3);
  return b;
}

}  // namespace music3::bench
