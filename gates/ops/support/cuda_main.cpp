// main() of the op_<op>_cuda executables (and core_stream_priority_cuda): exit 77 (ctest: skipped) when this build
// or machine has no CUDA device. `--disable-providers A,B` (before the GoogleTest flags) sets
// MUSIC3_DISABLE_PROVIDERS for the run, so one executable gates each CUDA provider of an op; `--enable-providers A,B`
// sets MUSIC3_ENABLE_PROVIDERS (opt-in providers, registry.h).
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

#include "engine/core/backend.h"

int main(int argc, char** argv) {
  std::vector<char*> rest{argv[0]};
  for (int i = 1; i < argc; ++i) {
    if (std::strcmp(argv[i], "--disable-providers") == 0 && i + 1 < argc)
      setenv("MUSIC3_DISABLE_PROVIDERS", argv[++i], 1);  // before the registry's first use
    else if (std::strcmp(argv[i], "--enable-providers") == 0 && i + 1 < argc)
      setenv("MUSIC3_ENABLE_PROVIDERS", argv[++i], 1);  // opt-in providers
    else
      rest.push_back(argv[i]);
  }
  if (!music3::cuda_device_available()) {
    std::puts("no CUDA device: skipped");
    return 77;
  }
  int n = static_cast<int>(rest.size());
  testing::InitGoogleTest(&n, rest.data());
  return RUN_ALL_TESTS();
}
