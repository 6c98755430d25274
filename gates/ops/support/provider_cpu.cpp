// The CPU provider under test, and main() for the op_<op>_cpu executables.
#include <gtest/gtest.h>

#include "gates/ops/support/provider_under_test.h"

namespace music3::optest {
bool provider_is_cuda() { return false; }
std::string provider_name() { return "cpu"; }
Queue provider_queue(int cpu_threads) { return cpu_queue(cpu_threads); }
}  // namespace music3::optest

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  return RUN_ALL_TESTS();
}
