// battery_slow_verify_gate: a gate that is slow on one chosen run, for the battery's retry of a verification gate
// that timed out on the unmutated tree (mutations/README.md, step 4). Each run adds one line to
// battery_slow_verify.runs in its working folder (the battery runs gates in its build folder); the run whose number
// is --slow-run N sleeps --slow-seconds S first. Without the flags (ctest) it is never slow. The test itself always
// passes: what the battery judges is how long it took.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <string>
#include <thread>

namespace {

int slow_run = 0, slow_seconds = 0;
constexpr const char* kRunsFile = "battery_slow_verify.runs";

int record_run() {
  int runs = 0;
  {
    std::ifstream in(kRunsFile);
    for (std::string line; std::getline(in, line);) ++runs;
  }
  std::ofstream(kRunsFile, std::ios::app) << "run\n";
  return runs + 1;
}

TEST(BatterySlowVerify, SlowOnlyOnTheChosenRun) {
  const int run = record_run();
  if (run == slow_run) std::this_thread::sleep_for(std::chrono::seconds(slow_seconds));
  SUCCEED() << "run " << run;
}

}  // namespace

int main(int argc, char** argv) {
  testing::InitGoogleTest(&argc, argv);
  for (int i = 1; i + 1 < argc; ++i) {
    if (std::strcmp(argv[i], "--slow-run") == 0) slow_run = std::atoi(argv[i + 1]);
    if (std::strcmp(argv[i], "--slow-seconds") == 0) slow_seconds = std::atoi(argv[i + 1]);
  }
  return RUN_ALL_TESTS();
}
