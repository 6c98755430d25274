// main() of the op_<op>_cuda_racecheck executables: the same tests, run under
// compute-sanitizer's racecheck, which reports a shared-memory hazard (a dropped
// __syncthreads) deterministically where value checks see it only when the timing
// happens to expose it. The executable re-runs itself under the sanitizer; exit 77
// (skipped) without a CUDA device or without compute-sanitizer; 86 when racecheck
// reports a hazard.
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "engine/core/backend.h"

namespace {
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
}  // namespace

int main(int argc, char** argv) {
  if (!music3::cuda_device_available()) {
    std::puts("no CUDA device: skipped");
    return 77;
  }
  if (!std::getenv("MUSIC3_UNDER_RACECHECK")) {
    const std::string sanitizer = find_sanitizer();
    if (sanitizer.empty()) {
      std::puts("no compute-sanitizer: skipped");
      return 77;
    }
    setenv("MUSIC3_UNDER_RACECHECK", "1", 1);
    std::vector<std::string> args{sanitizer, "--tool", "racecheck", "--racecheck-report", "all", "--error-exitcode", "86",
                                  "--", argv[0]};
    for (int i = 1; i < argc; ++i) args.emplace_back(argv[i]);
    std::vector<char*> cargs;
    for (auto& a : args) cargs.push_back(a.data());
    cargs.push_back(nullptr);
    execv(sanitizer.c_str(), cargs.data());
    std::perror("execv compute-sanitizer");
    return 2;
  }
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
