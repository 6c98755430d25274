// The CUDA provider under test, and main() for the op_<op>_cuda executables:
// exit 77 (ctest: skipped) when this build or machine has no CUDA device.
#include <gtest/gtest.h>

#include <cstdio>

#include "engine/core/backend.h"
#include "gates/ops/support/provider_under_test.h"

namespace music3::optest {
bool provider_is_cuda() { return true; }
std::string provider_name() { return "cuda"; }
Queue provider_queue(int) { return cuda_queue(0); }
}  // namespace music3::optest

int main(int argc, char** argv) {
  if (!music3::cuda_device_available()) {
    std::puts("no CUDA device: skipped");
    return 77;
  }
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
