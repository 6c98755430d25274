// mutation-battery merge OUT_DIR SHARD_DIR...: one report from the reports of the shards of one run
// (a CI matrix of --shard k/n jobs), as if one unsharded run had written it.
// Contract: refuses with MergeError (exit 5), naming the folders, when a folder is not a battery report;
// when the shards differ in revision, component, label, --only, in-diff merge base or shard count n; when two
// share a k or plan the same mutation (overlapping mutants); when a shard of 0..n-1 is missing; or when the shards
// were built by different tools (C++ compiler, nvcc, cmake, CUDA on or off). Binary hashes are per shard (each
// builds in its own folder, and a path a gate embeds changes its hash), named "<exe> (shard k/n)" in the
// merged report. Otherwise writes OUT_DIR as one run
// does (reports.h): every shard's plan and outcomes in position order, each shard's baseline and verification
// lines tagged with "shard", mutation.json, mutation.html, summary.md (with a Shards table) and run.json; the
// diff/ and log/ files of each mutation, and each shard's other logs as log/shard-<k>-<name>.
// Exit (the shared table): 9 a shard's run is void, 4 a shard stopped at its baseline, 5 a shard stopped
// otherwise (its report is partial), 2 a mutation missed its expected outcome, 0 otherwise.
#pragma once
#include <stdexcept>
#include <string>
#include <vector>

namespace music3::battery {

class MergeError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

int run_merge(const std::string& out_dir, const std::vector<std::string>& shard_dirs, const std::string& command);

}  // namespace music3::battery
