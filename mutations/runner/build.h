// Configuring and building the worktree (CMake + Ninja), and the evidence a rebuild
// leaves: which objects depend on a source (ninja's deps log), their mtimes, and the
// sha256 of gate executables.
// Contract: every command's output is appended to the given log; a failed configure
// or clean throws std::runtime_error naming the log; build() returns the status so
// the caller can call a failed build of a mutant `unviable`.
#pragma once
#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "tools/process.h"

namespace music3::battery {

// The battery runs its children through the harness tools' process layer.
using tools::capture;
using tools::capture_ok;
using tools::Captured;
using tools::install_interrupt_handlers;
using tools::Interrupted;
using tools::join_command;
using tools::pending_interrupt;
using tools::ProcessResult;
using tools::ProcessSpec;
using tools::run_process;
using tools::throw_if_interrupted;

struct BuildDir {
  std::string source;  // the worktree
  std::string dir;     // the build directory
  bool cuda = false;
  int jobs = 1;
  std::string oracle_python;  // -DMUSIC3_ORACLE_PYTHON for the worktree ("" = the worktree's own default)
  // The compiler cache every compile goes through ("" = none), and the folder its paths are made relative to
  // (CCACHE_BASEDIR: the worktree's parent, so the worktree and its build share hits across runs).
  std::string compiler_cache, cache_base;

  std::string executable(const std::string& name) const { return dir + "/bin/" + name; }
};

// ccache on PATH, unless MUSIC3_BATTERY_CCACHE=0; "" when there is none. Why: restoring a mutated file makes every
// object that includes it stale again, and the rebuild that follows compiles what the cache already holds.
std::string find_compiler_cache();
void configure(const BuildDir& b, const std::string& log);
// The oracle venv's python the gates should run: $MUSIC3_ORACLE_PYTHON, else <repo>/.venv/bin/python when it
// exists (a worktree has no venv of its own), else "".
std::string oracle_python(const std::string& repo);
ProcessResult build_targets(const BuildDir& b, const std::vector<std::string>& targets, const std::string& log);

// Objects (absolute paths) whose recorded dependencies include `source_file`.
std::vector<std::string> objects_depending_on(const BuildDir& b, const std::string& source_file);
// Every file the targets are built from, transitively (ninja -t inputs), as absolute paths.
std::vector<std::string> target_inputs(const BuildDir& b, const std::vector<std::string>& targets);

// Nanosecond mtime of each path (-1 for a missing file).
std::map<std::string, int64_t> mtimes_ns(const std::vector<std::string>& paths);

// gate executable name -> sha256 of <build>/bin/<name>.
std::map<std::string, std::string> hash_executables(const BuildDir& b, const std::vector<std::string>& names);

}  // namespace music3::battery
