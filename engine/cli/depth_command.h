// `music3 depth`: runs the RVQ depth stage frame by frame.
// Contract: returns exit_code::kOk, or kNonFinite when non-finite head logits were
// seen; throws UsageError (a bad flag), ArmRefused (no arm for the device) or another
// std::exception naming the bad input, which main() maps through the shared table.
// Prints per-frame codes and ms (or one JSON object with --json) to stdout.
// Registered in the command table as depth_command() (command.h).
// Thread-safety: runs on main()'s thread; the engine it builds is used by that thread alone.
#pragma once
#include <string>
#include <vector>

namespace music3::cli {
int run_depth_command(const std::vector<std::string>& args);
extern const char* const kDepthUsage;
}  // namespace music3::cli
