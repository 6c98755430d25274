// `music3 depth`: runs the RVQ depth stage frame by frame.
// Contract: returns the process exit code (0 ok, 2 usage or input error, 3 device
// refused); prints per-frame codes and ms (or JSON with --json) to stdout and
// every error, naming the problem, to stderr.
#pragma once
#include <string>
#include <vector>

namespace music3::cli {
int run_depth_command(const std::vector<std::string>& args);
extern const char* const kDepthUsage;
}  // namespace music3::cli
