// main() of the op_<op>_cuda executables (and core_stream_priority_cuda): exit 77 (ctest: skipped) when this build
// or machine has no CUDA device. Flags before the GoogleTest ones:
//   --disable-providers A,B   sets MUSIC3_DISABLE_PROVIDERS for the run, so one executable gates each CUDA provider
//                             of an op; --enable-providers A,B sets MUSIC3_ENABLE_PROVIDERS (opt-in providers,
//                             registry.h);
//   --tool TOOL               runs the same tests under compute-sanitizer's TOOL, which reports a defect
//                             deterministically where value checks see it only when timing or memory layout happens
//                             to expose it: racecheck (a shared-memory hazard: a dropped or misplaced barrier, a
//                             buffer reused too early), synccheck (a barrier the block does not reach together),
//                             memcheck (an out-of-bounds or misaligned access). The executable re-runs itself under
//                             the sanitizer (the provider flags travel in the environment); exit 77 without
//                             compute-sanitizer, 86 when the tool reports an error, 1 for another TOOL;
//   --kernels A,B             with --tool: the tool checks only kernels whose names contain A or B (compute-sanitizer's
//                             --kernel-name kns=), so library kernels (cuBLAS, cuDNN, CUTLASS) stay out of the verdict
//                             and the run stays short.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "engine/core/backend.h"

namespace {
constexpr const char* kUnderSanitizer = "MUSIC3_UNDER_CUDA_SANITIZER";
constexpr int kSanitizerError = 86;

// compute-sanitizer on PATH, else in the CUDA toolkit's usual places.
std::string find_sanitizer() {
  std::string dirs = std::getenv("PATH") ? std::getenv("PATH") : "";
  dirs += ":/usr/local/cuda/bin:/usr/local/cuda/compute-sanitizer";
  size_t begin = 0;
  while (begin <= dirs.size()) {
    const size_t end = std::min(dirs.find(':', begin), dirs.size());
    const std::string p = dirs.substr(begin, end - begin) + "/compute-sanitizer";
    if (end > begin && access(p.c_str(), X_OK) == 0) return p;
    begin = end + 1;
  }
  return "";
}

// Replaces this process with compute-sanitizer's `tool` running this executable with the GoogleTest flags in `rest`;
// returns only when that cannot start.
int run_under(const std::string& tool, const std::string& kernels, const std::vector<char*>& rest) {
  const std::string sanitizer = find_sanitizer();
  if (sanitizer.empty()) {
    std::puts("no compute-sanitizer: skipped");
    return 77;
  }
  std::vector<std::string> args{sanitizer, "--tool", tool, "--error-exitcode", std::to_string(kSanitizerError)};
  if (tool == "racecheck") args.insert(args.end(), {"--racecheck-report", "all"});
  for (size_t begin = 0; begin < kernels.size();) {
    const size_t end = std::min(kernels.find(',', begin), kernels.size());
    args.insert(args.end(), {"--kernel-name", "kns=" + kernels.substr(begin, end - begin)});
    begin = end + 1;
  }
  args.insert(args.end(), {"--", rest[0]});
  for (size_t i = 1; i < rest.size(); ++i) args.emplace_back(rest[i]);
  std::vector<char*> cargs;
  for (auto& a : args) cargs.push_back(a.data());
  cargs.push_back(nullptr);
  setenv(kUnderSanitizer, tool.c_str(), 1);
  execv(sanitizer.c_str(), cargs.data());
  std::perror("execv compute-sanitizer");
  return 2;
}
}  // namespace

int main(int argc, char** argv) {
  std::string tool, kernels;
  std::vector<char*> rest{argv[0]};
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--disable-providers") == 0 && i + 1 < argc)
      setenv("MUSIC3_DISABLE_PROVIDERS", argv[++i], 1);  // before the registry's first use
    else if (std::strcmp(argv[i], "--enable-providers") == 0 && i + 1 < argc)
      setenv("MUSIC3_ENABLE_PROVIDERS", argv[++i], 1);  // opt-in providers
    else if (std::strcmp(argv[i], "--tool") == 0 && i + 1 < argc)
      tool = argv[++i];
    else if (std::strcmp(argv[i], "--kernels") == 0 && i + 1 < argc)
      kernels = argv[++i];
    else
      rest.push_back(argv[i]);
  }
  if (!tool.empty() && tool != "racecheck" && tool != "synccheck" && tool != "memcheck") {
    std::fprintf(stderr, "--tool: '%s' is not racecheck, synccheck or memcheck\n", tool.c_str());
    return 1;
  }
  if (!kernels.empty() && (tool.empty() || kernels.front() == ',' || kernels.back() == ',' ||
                           kernels.find(",,") != std::string::npos)) {
    std::fprintf(stderr, "--kernels: '%s' needs --tool and non-empty names between commas\n", kernels.c_str());
    return 1;
  }
  if (!music3::cuda_device_available()) {
    std::puts("no CUDA device: skipped");
    return 77;
  }
  if (!tool.empty() && !std::getenv(kUnderSanitizer)) return run_under(tool, kernels, rest);
  // Line-buffered even into ctest's pipe: a case that aborts the process (a device fault under a tool) leaves the
  // lines its test printed before it, which name the shape that faulted.
  std::setvbuf(stdout, nullptr, _IOLBF, 0);
  int n = static_cast<int>(rest.size());
  testing::InitGoogleTest(&n, rest.data());
  return RUN_ALL_TESTS();
}
