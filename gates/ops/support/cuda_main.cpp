// main() of the op_<op>_cuda executables: exit 77 (ctest: skipped) when this build
// or machine has no CUDA device.
#include <gtest/gtest.h>

#include <cstdio>

#include "engine/core/backend.h"

int main(int argc, char** argv) {
  if (!music3::cuda_device_available()) {
    std::puts("no CUDA device: skipped");
    return 77;
  }
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
