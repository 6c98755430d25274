// Gate evidence: ctest output judged (passed, failed, skipped, none found), records
// round-tripped through JSON, malformed records named, and a binary passed only by a
// passing record that lists its sha256.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "bench/ab/gate_evidence.h"

namespace music3::bench {
namespace {

GateEvidence judged(int exit_code, const std::string& output) {
  GateEvidence r;
  r.exit_code = exit_code;
  judge_gate_output(r, output);
  return r;
}

TEST(GateEvidence, CtestOutputIsJudged) {
  GateEvidence ok = judged(0, "1/2 Test #1: a ... Passed\n2/2 Test #2: b ... Passed\n\n100% tests passed, 0 tests failed out of 2\n");
  EXPECT_TRUE(ok.passed);
  EXPECT_EQ(ok.tests_total, 2);
  EXPECT_EQ(ok.tests_skipped, 0);

  GateEvidence skipped = judged(0, "1/2 Test #1: a ... Passed\n2/2 Test #2: b ...***Skipped   0.01 sec\n\n"
                                 "100% tests passed, 0 tests failed out of 2\n");
  EXPECT_FALSE(skipped.passed);  // a skipped GPU gate is not a pass
  EXPECT_EQ(skipped.tests_skipped, 1);

  GateEvidence failed = judged(8, "50% tests passed, 1 tests failed out of 2\n");
  EXPECT_FALSE(failed.passed);
  EXPECT_EQ(failed.tests_failed, 1);

  EXPECT_FALSE(judged(0, "No tests were found!!!\n").passed);
  EXPECT_FALSE(judged(0, "not ctest\n").passed);  // no ctest summary: no proof that a test ran
  GateEvidence ctest4 = judged(0, "100% tests passed out of 18\n");  // CTest 4 drops ", 0 tests failed"
  EXPECT_TRUE(ctest4.passed);
  EXPECT_EQ(ctest4.tests_total, 18);
  EXPECT_EQ(ctest4.tests_failed, 0);
  EXPECT_FALSE(judged(1, "not ctest\n").passed);
}

TEST(GateEvidence, StatusNeedsAPassingRecordListingTheBinary) {
  GateEvidence pass = judged(0, "100% tests passed, 0 tests failed out of 3\n");
  pass.command = "ctest -L gpu";
  pass.binaries = {{"build/bin/ab-bench", "aaa"}};
  GateEvidence fail = judged(8, "66% tests passed, 1 tests failed out of 3\n");
  fail.command = "ctest -L gpu";
  fail.binaries = {{"other/bin/music3", "bbb"}};

  EXPECT_TRUE(gate_status_for({pass, fail}, "aaa").passed);
  const GateStatus failed = gate_status_for({pass, fail}, "bbb");
  EXPECT_FALSE(failed.passed);
  EXPECT_NE(failed.detail.find("gates failed"), std::string::npos);
  const GateStatus absent = gate_status_for({pass}, "ccc");
  EXPECT_FALSE(absent.passed);
  EXPECT_NE(absent.detail.find("ccc"), std::string::npos);
  EXPECT_FALSE(gate_status_for({}, "aaa").passed);
}

TEST(GateEvidence, RecordsRoundTripAndMalformedOnesAreNamed) {
  const auto dir = std::filesystem::temp_directory_path() / ("gate_evidence_test_" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  GateEvidence r = judged(0, "100% tests passed, 0 tests failed out of 1\n");
  r.command = "ctest -L gpu";
  r.binaries = {{"bin/music3", "0123"}};
  r.git_rev = "abc";
  const std::string path = (dir / "gates.json").string();
  write_gate_evidence(r, path);
  const GateEvidence back = read_gate_evidence(path);
  EXPECT_EQ(back.command, r.command);
  EXPECT_EQ(back.binaries, r.binaries);
  EXPECT_TRUE(back.passed);
  EXPECT_EQ(back.source, path);

  const std::string bad = (dir / "bad.json").string();
  std::ofstream(bad) << R"({"schema": "music3-gates/1", "command": "x", "exit_code": 0, "passed": true})";
  try {
    read_gate_evidence(bad);
    FAIL() << "a record without binaries was accepted";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("binaries"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find(bad), std::string::npos) << e.what();
  }
  std::ofstream(bad) << R"({"schema": "other/9"})";
  EXPECT_THROW(read_gate_evidence(bad), std::runtime_error);
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace music3::bench
