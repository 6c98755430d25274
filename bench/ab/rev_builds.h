// The two-build mode's builds: each git revision's tree, exported with `git archive`
// (the repository is only read: no worktree, branch or ref is created), configured with
// the same CMake options into its own build directory, and built.
// Contract: build_revision() resolves REV to a commit, reuses an export and build of the
// same commit under work_dir when one completed before, and throws naming the revision,
// the failing step and the tail of its log (kept at work_dir/<commit12>.log).
#pragma once
#include <iosfwd>
#include <string>

namespace music3::bench {

struct RevBuild {
  std::string rev, commit, src_dir, build_dir, music3;
};

RevBuild build_revision(const std::string& repo, const std::string& rev, const std::string& work_dir,
                        const std::string& cmake_args, const std::string& targets, std::ostream& progress);

}  // namespace music3::bench
