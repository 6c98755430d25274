// The battery's isolation from the user's repository.
// Contract: the user's repository is only read (toplevel, HEAD, dirty check) and
// lent one detached worktree of HEAD in a fresh temporary directory, created with
// the battery's build directories beside it. A Worktree removes the worktree and the
// whole temporary directory on destruction unless keep() was called.
#pragma once
#include <string>
#include <vector>

namespace music3::battery {

std::string repo_toplevel(const std::string& start_dir);
std::string head_revision(const std::string& repo);  // full hex
// Tracked files with staged or unstaged changes (`git status --porcelain`, untracked ignored).
std::vector<std::string> dirty_tracked_files(const std::string& repo);

class Worktree {
 public:
  explicit Worktree(const std::string& repo);  // mkdtemp under $TMPDIR, then git worktree add --detach
  ~Worktree();
  Worktree(const Worktree&) = delete;
  Worktree& operator=(const Worktree&) = delete;

  const std::string& root() const { return temp_; }      // the temporary directory
  const std::string& source() const { return source_; }  // <root>/wt, the worktree
  void keep() { keep_ = true; }

 private:
  std::string repo_, temp_, source_;
  bool keep_ = false;
};

}  // namespace music3::battery
