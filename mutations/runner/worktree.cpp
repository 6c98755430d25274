#include "mutations/runner/worktree.h"

#include <cstdlib>
#include <filesystem>
#include <sstream>
#include <stdexcept>

#include "mutations/runner/build.h"

namespace music3::battery {
namespace {

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

}  // namespace

std::string repo_toplevel(const std::string& start_dir) {
  return trim(capture_ok({"git", "-C", start_dir, "rev-parse", "--show-toplevel"}, ""));
}

std::string head_revision(const std::string& repo) {
  return trim(capture_ok({"git", "-C", repo, "rev-parse", "HEAD"}, ""));
}

std::vector<std::string> dirty_tracked_files(const std::string& repo) {
  std::istringstream in(capture_ok({"git", "-C", repo, "status", "--porcelain", "--untracked-files=no"}, ""));
  std::vector<std::string> out;
  for (std::string line; std::getline(in, line);)
    if (!line.empty()) out.push_back(line);
  return out;
}

Worktree::Worktree(const std::string& repo) : repo_(repo) {
  const char* tmpdir = std::getenv("TMPDIR");
  std::string pattern = std::string(tmpdir && *tmpdir ? tmpdir : "/tmp") + "/music3-battery-XXXXXX";
  if (!mkdtemp(pattern.data())) throw std::runtime_error("cannot create a temporary directory from " + pattern);
  // Canonical, so that paths in ninja's deps log compare equal to ours.
  temp_ = std::filesystem::canonical(pattern).string();
  source_ = temp_ + "/wt";
  Captured c = capture({"git", "-C", repo_, "worktree", "add", "--detach", source_, "HEAD"}, "");
  if (!c.result.ok()) {
    std::filesystem::remove_all(temp_);
    throw std::runtime_error("git worktree add failed (" + c.result.describe() + "): " + c.err);
  }
}

Worktree::~Worktree() {
  if (keep_) return;
  try {
    capture({"git", "-C", repo_, "worktree", "remove", "--force", source_}, "");
    std::filesystem::remove_all(temp_);
    capture({"git", "-C", repo_, "worktree", "prune"}, "");
  } catch (...) {
    // An interrupt during cleanup: the temporary directory and the worktree entry
    // stay behind; `git worktree prune` clears the entry once the directory is gone.
  }
}

}  // namespace music3::battery
