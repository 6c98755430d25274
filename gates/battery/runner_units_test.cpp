// battery_runner_units_test: the runner's parts that need no build: the patch and
// its restore (bytes and mtime), the line counts git must report, positions, gtest
// JSON reading, outcome classification and expectations, the --in-diff choice, and child processes
// (exit status, signals, timeouts), the report directory's rotation, and the log cap.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <csignal>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>

#include "mutations/runner/gate_run.h"
#include "mutations/runner/in_diff.h"
#include "mutations/runner/log_cap.h"
#include "mutations/runner/outcome.h"
#include "mutations/runner/patch.h"
#include "tools/process.h"
#include "mutations/runner/reports.h"

namespace {

namespace fs = std::filesystem;
using namespace music3::battery;

class TempDir : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "battery-units-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    dir_ = pattern;
  }
  void TearDown() override { fs::remove_all(dir_); }
  std::string dir_;
};

int64_t mtime_ns(const std::string& p) {
  struct stat st {};
  stat(p.c_str(), &st);
  return int64_t(st.st_mtim.tv_sec) * 1000000000 + st.st_mtim.tv_nsec;
}

using LogCapTest = TempDir;

TEST_F(LogCapTest, ASmallLogIsLeftByteForByte) {
  const std::string f = dir_ + "/small.log", text = "line one\nno newline at the end";
  write_file_bytes(f, text);
  cap_log(f, 1024);
  EXPECT_EQ(read_file_bytes(f), text);
}

TEST_F(LogCapTest, ABigLogKeepsHeadTailAndEveryFailureWithItsLines) {
  const std::string f = dir_ + "/big.log";
  std::string text;
  for (int i = 0; i < 5000; ++i) {
    text += "[stats] filler line " + std::to_string(i) + "\n";
    if (i == 2500) text += "gates/x.cpp:12: Failure\nExpected: (a) <= (b), actual: 5 vs 4\nctx 1\nctx 2\n";
  }
  write_file_bytes(f, text);
  cap_log(f, 16 * 1024);
  const std::string out = read_file_bytes(f);
  EXPECT_LT(out.size(), text.size() / 4);
  for (const char* kept : {"filler line 0\n", "filler line 119\n", "Failure\n", "actual: 5 vs 4", "ctx 2\n",
                           "filler line 4999\n", "lines cut by the battery's log cap (16 KiB)"})
    EXPECT_NE(out.find(kept), std::string::npos) << kept;
  EXPECT_EQ(out.find("filler line 1000\n"), std::string::npos);
}

TEST_F(LogCapTest, AMillionFailuresKeepTheFirstOnesTheNotesAndTheSummary) {
  const std::string f = dir_ + "/flood.log";
  std::string text = "### mutation m\n$ (cd build && bin/gate)  # timeout 60 s\n";
  for (int i = 0; i < 200000; ++i)
    text += "gates/x.cpp:72: Failure\nExpected equality of these values:\n  p\n    Which is: " + std::to_string(i) +
            "\n";
  text += "### outcome: killed (as expected)\n";
  write_file_bytes(f, text);
  cap_log(f, 96 * 1024);
  const std::string out = read_file_bytes(f);
  EXPECT_LT(out.size(), size_t(256 * 1024)) << "a flood of failures is bounded";
  for (const char* kept : {"### mutation m\n", "$ (cd build", "Which is: 0\n", "Which is: 199999\n",
                           "### outcome: killed", "lines cut by the battery's log cap"})
    EXPECT_NE(out.find(kept), std::string::npos) << kept;
  EXPECT_EQ(out.find("Which is: 100000\n"), std::string::npos);
  const std::string once = out;
  cap_log(f, 96 * 1024);
  EXPECT_EQ(read_file_bytes(f), once) << "capping the capped flood changes nothing";
}

TEST_F(LogCapTest, CappingACappedLogChangesNothing) {
  const std::string f = dir_ + "/twice.log";
  std::string text;
  for (int i = 0; i < 5000; ++i) {
    text += "[stats] filler line " + std::to_string(i) + "\n";
    if (i % 1000 == 500) text += "gates/x.cpp:12: Failure\nExpected: (a) <= (b), actual: 5 vs 4\nctx 1\n";
  }
  write_file_bytes(f, text);
  cap_log(f, 16 * 1024);
  const std::string once = read_file_bytes(f);
  ASSERT_LT(once.size(), text.size());
  cap_log(f, 1024);  // still over this cap: a second pass runs, and must keep every line and marker of the first
  EXPECT_EQ(read_file_bytes(f), once);
}

TEST_F(LogCapTest, LongEvidenceLinesAreBoundedInBytesAndCutAtACharacter) {
  const std::string f = dir_ + "/dumps.log";
  // A gate's tensor dumps: 2,000 failures whose value lines are 4.8 KB each (the 430 KiB logs of 2026-12-05).
  std::string text = "### mutation m\n", dump;
  for (int i = 0; i < 1200; ++i) dump += "0.5\xC3\xA9 ";  // 6 bytes a value, a two-byte character in each
  for (int i = 0; i < 2000; ++i)
    // The 12-byte prefix puts byte 1,024 of the line on a character's second byte.
    text += "gates/x.cpp:9: Failure\nValue of: out[" + std::to_string(i) + "]\n  Actual:  ." + dump + "\n";
  text += "### outcome: killed (as expected)\n";
  write_file_bytes(f, text);
  cap_log(f, 96 * 1024);
  const std::string out = read_file_bytes(f);
  // Head (120) and tail (200) lines of at most ~1.1 KB each, 48 KiB of evidence, the notes and markers.
  EXPECT_LT(out.size(), size_t(430 * 1024)) << "long evidence lines are bounded in bytes";
  EXPECT_LT(out.size(), text.size() / 10);
  for (const char* kept : {"### mutation m\n", "Value of: out[0]\n", "Value of: out[1999]\n",
                           "bytes of this line cut by the battery's log cap ...]", "### outcome: killed"})
    EXPECT_NE(out.find(kept), std::string::npos) << kept;
  EXPECT_EQ(out.find("Value of: out[1000]\n"), std::string::npos);
  size_t longest = 0, start = 0;
  for (size_t nl; (nl = out.find('\n', start)) != std::string::npos; start = nl + 1) {
    const std::string line = out.substr(start, nl - start);
    longest = std::max(longest, line.size());
    const size_t cut = line.find(" [... ");
    if (cut != std::string::npos && line.find("bytes of this line cut") != std::string::npos) {
      EXPECT_NE(static_cast<unsigned char>(line[cut - 1]), 0xC3u) << "a cut keeps whole characters";
    }
  }
  EXPECT_LT(longest, size_t(1100));
  const std::string once = out;
  cap_log(f, 96 * 1024);
  EXPECT_EQ(read_file_bytes(f), once) << "capping the capped dumps changes nothing";
  cap_log(f, 1024);
  EXPECT_EQ(read_file_bytes(f), once) << "nor does a smaller cap";
}

using PatchTest = TempDir;

TEST_F(PatchTest, ApplyThenRestoreGivesBackTheBytesWithNewerMtimes) {
  std::string f = dir_ + "/a.cpp";
  write_file_bytes(f, "int f() { return 1; }\n");
  timespec old[2] = {{1000, 0}, {1000, 0}};  // an mtime far in the past, as cp -p would keep
  utimensat(AT_FDCWD, f.c_str(), old, 0);
  int64_t t0 = mtime_ns(f);
  Patch p = Patch::apply(f, "return 1;", "return 2;");
  EXPECT_EQ(read_file_bytes(f), "int f() { return 2; }\n");
  int64_t t1 = mtime_ns(f);
  EXPECT_GT(t1, t0);
  utimensat(AT_FDCWD, f.c_str(), old, 0);
  p.restore();
  EXPECT_EQ(read_file_bytes(f), "int f() { return 1; }\n");
  EXPECT_GT(mtime_ns(f), t0) << "a restore must touch, or ninja keeps the mutant binary";
}

TEST_F(PatchTest, DestructionRestores) {
  std::string f = dir_ + "/a.cpp";
  write_file_bytes(f, "x = a + b;\n");
  {
    Patch p = Patch::apply(f, "a + b", "a - b");
    EXPECT_EQ(read_file_bytes(f), "x = a - b;\n");
  }
  EXPECT_EQ(read_file_bytes(f), "x = a + b;\n");
}

TEST_F(PatchTest, OriginalMustOccurExactlyOnce) {
  std::string f = dir_ + "/a.cpp";
  write_file_bytes(f, "a; a;\n");
  EXPECT_THROW(Patch::apply(f, "a;", "b;"), std::runtime_error);
  EXPECT_THROW(Patch::apply(f, "c;", "b;"), std::runtime_error);
  EXPECT_EQ(read_file_bytes(f), "a; a;\n");
}

LineChange change(const std::string& before, const std::string& original, const std::string& replacement) {
  size_t at = before.find(original);
  return expected_line_change(before, before.substr(0, at) + replacement + before.substr(at + original.size()));
}

TEST(ExpectedLineChange, MatchesWhatGitNumstatCounts) {
  const std::string text = "a\nb = 1;\nc\nd\n";
  auto one = change(text, "1", "2");
  EXPECT_EQ(one.added, 1);
  EXPECT_EQ(one.deleted, 1);
  auto drop = change(text, "b = 1;\n", "");
  EXPECT_EQ(drop.added, 0);
  EXPECT_EQ(drop.deleted, 1);
  auto grow = change(text, "b = 1;", "b = 1;\nb2 = 2;\nb3 = 3;");
  EXPECT_EQ(grow.added, 2);
  EXPECT_EQ(grow.deleted, 0);
  auto span = change(text, "1;\nc", "9;\nz");
  EXPECT_EQ(span.added, 2);
  EXPECT_EQ(span.deleted, 2);
}

// Line moves: git keeps the longest common subsequence, so a swap of two lines is one line moved (+1 -1).
TEST(ExpectedLineChange, ALineSwapIsOneLineMoved) {
  const std::string text = "a\nb\nc\nd\ne\n";
  auto swap = change(text, "b\nc\n", "c\nb\n");
  EXPECT_EQ(swap.added, 1);
  EXPECT_EQ(swap.deleted, 1);
  auto far = change(text, "b\nc\nd\n", "d\nc\nb\n");  // reversal of three: two of them move
  EXPECT_EQ(far.added, 2);
  EXPECT_EQ(far.deleted, 2);
}

// The count is git's own: each case written to two files and compared with `git diff --no-index --numstat`.
TEST_F(PatchTest, ExpectedLineChangeEqualsGitNumstat) {
  const std::string text = "int a;\nint b;\nint c;\nint d;\nint e;\nint f;\n";
  struct Case {
    const char *original, *replacement;
  } cases[] = {{"int b;\nint c;\n", "int c;\nint b;\n"},
               {"int b;\nint c;\nint d;\n", "int d;\nint b;\nint c;\n"},
               {"int c;", "int c = 1;"},
               {"int b;\n", ""},
               {"int e;", "int e;\nint e2;"},
               {"int b;\nint c;\nint d;\nint e;\n", "int e;\nint d;\nint c;\nint b;\n"}};
  for (const auto& c : cases) {
    const size_t at = text.find(c.original);
    const std::string after = text.substr(0, at) + c.replacement + text.substr(at + std::strlen(c.original));
    write_file_bytes(dir_ + "/before.cpp", text);
    write_file_bytes(dir_ + "/after.cpp", after);
    const std::string cmd = "cd '" + dir_ + "' && git diff --no-index --numstat before.cpp after.cpp";
    std::string out;
    if (FILE* p = ::popen(cmd.c_str(), "r")) {
      char buf[256];
      while (std::fgets(buf, sizeof buf, p)) out += buf;
      ::pclose(p);
    }
    int added = -1, deleted = -1;
    ASSERT_EQ(std::sscanf(out.c_str(), "%d %d", &added, &deleted), 2) << cmd << ": " << out;
    const LineChange want = expected_line_change(text, after);
    EXPECT_EQ(want.added, added) << c.original << " -> " << c.replacement;
    EXPECT_EQ(want.deleted, deleted) << c.original << " -> " << c.replacement;
  }
}

TEST(PositionOf, LinesAndColumnsStartAtOne) {
  const std::string text = "ab\ncd\n";
  EXPECT_EQ(position_of(text, 0).line, 1);
  EXPECT_EQ(position_of(text, 0).column, 1);
  EXPECT_EQ(position_of(text, 4).line, 2);
  EXPECT_EQ(position_of(text, 4).column, 2);
}

using GtestJsonTest = TempDir;

TEST_F(GtestJsonTest, CountsFailingCasesAndAssertions) {
  std::string f = dir_ + "/g.json";
  std::ofstream(f) << R"({"tests": 3, "failures": 2, "testsuites": [
    {"name": "S", "tests": 2, "testsuite": [
      {"name": "A", "failures": [{"failure": "x", "type": ""}, {"failure": "y", "type": ""}]},
      {"name": "B"}]},
    {"name": "T", "tests": 1, "testsuite": [{"name": "C", "failures": [{"failure": "z", "type": ""}]}]}]})";
  GateResult r;
  ASSERT_TRUE(read_gtest_json(f, r));
  EXPECT_EQ(r.tests_run, 3);
  EXPECT_EQ(r.failing_cases, (std::vector<std::string>{"S.A", "T.C"}));
  EXPECT_EQ(r.failed_assertions, 3);
  GateResult missing;
  EXPECT_FALSE(read_gtest_json(dir_ + "/none.json", missing));
}

using GateRunTest = TempDir;

// A gate run gets its own TMPDIR in the build directory, and what the gate leaves there is gone when it ends.
TEST_F(GateRunTest, EachGateRunHasItsOwnTemporaryFolderRemovedAfterIt) {
  fs::create_directories(dir_ + "/bin");
  const std::string seen = dir_ + "/tmpdir-seen";
  {
    std::ofstream script(dir_ + "/bin/leaky_gate");
    script << "#!/bin/sh\necho \"$TMPDIR\" > " << seen << "\nhead -c 4096 /dev/zero > \"$TMPDIR/kept\"\nexit 1\n";
  }
  fs::permissions(dir_ + "/bin/leaky_gate", fs::perms::owner_all);
  Gate leaky;
  leaky.id = "leaky";
  leaky.executable = "leaky_gate";
  BuildDir b;
  b.source = dir_;
  b.dir = dir_;
  const GateResult r = run_gate(leaky, b, 30, dir_ + "/leaky.json", dir_ + "/leaky.log");
  EXPECT_EQ(r.verdict, GateVerdict::Failed);
  std::string tmpdir;
  std::getline(std::ifstream(seen), tmpdir);
  EXPECT_EQ(tmpdir.rfind(dir_ + "/gate-tmp-", 0), 0u) << tmpdir;
  EXPECT_FALSE(fs::exists(tmpdir)) << tmpdir;
}

GateResult gate(GateVerdict v) {
  GateResult g;
  g.gate = std::string("g") + verdict_name(v);
  g.verdict = v;
  return g;
}

TEST(Classify, TimeoutsAndCrashesAreNeverKills) {
  using V = GateVerdict;
  EXPECT_EQ(classify({gate(V::Passed), gate(V::Failed)}), Outcome::Killed);
  EXPECT_EQ(classify({gate(V::Crashed), gate(V::Failed)}), Outcome::Killed);
  EXPECT_EQ(classify({gate(V::Passed), gate(V::Timeout)}), Outcome::Timeout);
  EXPECT_EQ(classify({gate(V::Crashed)}), Outcome::Crashed);
  EXPECT_EQ(classify({gate(V::Skipped)}), Outcome::InfraError);
  EXPECT_EQ(classify({gate(V::Passed), gate(V::Passed)}), Outcome::Survived);
}

TEST(JudgeExpectation, EveryListedGateMustGoRed) {
  MutationResult r;
  r.mutation.expected = Expected::Killed;
  r.outcome = Outcome::Killed;
  r.gates = {gate(GateVerdict::Failed), gate(GateVerdict::Failed)};
  judge_expectation(r);
  EXPECT_TRUE(r.as_expected);
  r.gates[1] = gate(GateVerdict::Passed);
  judge_expectation(r);
  EXPECT_FALSE(r.as_expected);
  EXPECT_NE(r.detail.find("gpassed passed"), std::string::npos) << r.detail;
}

TEST(JudgeExpectation, OutcomeMustMatch) {
  for (Outcome o : {Outcome::Survived, Outcome::Unviable, Outcome::Equivalent, Outcome::Timeout, Outcome::Crashed,
                    Outcome::InfraError}) {
    MutationResult r;
    r.mutation.expected = Expected::Killed;
    r.outcome = o;
    judge_expectation(r);
    EXPECT_FALSE(r.as_expected) << outcome_name(o);
  }
  MutationResult survivor;
  survivor.mutation.expected = Expected::Survived;
  survivor.outcome = Outcome::Survived;
  judge_expectation(survivor);
  EXPECT_TRUE(survivor.as_expected);
  survivor.outcome = Outcome::Killed;
  judge_expectation(survivor);
  EXPECT_FALSE(survivor.as_expected);
}

using ProcessTest = TempDir;
using music3::tools::Coprocess;

TEST_F(ProcessTest, ExitStatusSignalAndTimeout) {
  std::string log = dir_ + "/log";
  ProcessResult ok = run_process({{"/bin/sh", "-c", "echo hello; exit 3"}, dir_, {}, log, 0});
  EXPECT_EQ(ok.exit_code, 3);
  EXPECT_FALSE(ok.ok());
  EXPECT_EQ(read_file_bytes(log), "hello\n");
  ProcessResult sig = run_process({{"/bin/sh", "-c", "kill -SEGV $$"}, "", {}, "", 0});
  EXPECT_EQ(sig.signal, SIGSEGV);
  ProcessResult slow = run_process({{"/bin/sh", "-c", "sleep 30"}, "", {}, "", 0.3});
  EXPECT_TRUE(slow.timed_out);
  EXPECT_LT(slow.seconds, 5.0);
  ProcessResult env = run_process({{"/bin/sh", "-c", "test \"$X\" = y && test \"$PWD\" = \"$D\""}, dir_,
                                   {{"X", "y"}, {"D", fs::canonical(dir_).string()}}, "", 0});
  EXPECT_TRUE(env.ok()) << env.describe();
}

// A coprocess answers line by line, keeps its stderr in the log, and a child that dies or stalls becomes an error
// naming the command, never a hang.
TEST_F(ProcessTest, CoprocessAnswersEachLineAndReportsAChildThatEndsOrStalls) {
  const std::string log = dir_ + "/log";
  {
    Coprocess echo({{"/bin/sh", "-c", "echo started >&2; while read l; do echo \"got $l\"; done"}, "", {}, log, 5});
    EXPECT_EQ(echo.request("a"), "got a");
    EXPECT_EQ(echo.request("b c"), "got b c");
  }
  EXPECT_EQ(read_file_bytes(log), "started\n");
  Coprocess once({{"/bin/sh", "-c", "read l; echo one; exit 4"}, "", {}, "", 5});
  EXPECT_EQ(once.request("x"), "one");
  try {
    once.request("y");
    ADD_FAILURE() << "a request to a child that exited returned";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("exit 4"), std::string::npos) << e.what();
  }
  EXPECT_THROW(once.request("z"), std::runtime_error);  // spent
  Coprocess mute({{"/bin/sh", "-c", "sleep 30"}, "", {}, "", 0.3});
  const auto t0 = std::chrono::steady_clock::now();
  EXPECT_THROW(mute.request("x"), std::runtime_error);
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count(), 5.0);
}

TEST(Capture, SeparatesOutputAndError) {
  Captured c = capture({"/bin/sh", "-c", "echo out; echo err >&2; exit 2"}, "");
  EXPECT_EQ(c.out, "out\n");
  EXPECT_EQ(c.err, "err\n");
  EXPECT_EQ(c.result.exit_code, 2);
  EXPECT_THROW(capture_ok({"/bin/sh", "-c", "exit 1"}, ""), std::runtime_error);
}

using ReportsTest = TempDir;

TEST_F(ReportsTest, AnEarlierReportMovesAsideAndForeignFilesAreRefused) {
  std::string out = dir_ + "/out";
  fs::create_directories(out);
  write_file_bytes(out + "/mutants.json", "[]");
  write_file_bytes(out + "/stale.log", "from the earlier run");
  Reports first(out);
  EXPECT_TRUE(fs::exists(out + ".old/stale.log"));
  EXPECT_FALSE(fs::exists(out + "/stale.log"));
  EXPECT_TRUE(fs::exists(out + "/outcomes.jsonl"));

  std::string foreign = dir_ + "/foreign";
  fs::create_directories(foreign);
  write_file_bytes(foreign + "/notes.txt", "not a battery report");
  EXPECT_THROW(Reports{foreign}, ReportDirError);
  EXPECT_TRUE(fs::exists(foreign + "/notes.txt"));
}

TEST_F(ReportsTest, TwoRunsIntoOneDirectoryAreRefusedWhileTheFirstHoldsTheLock) {
  std::string out = dir_ + "/locked";
  {
    Reports first(out);
    first.write_mutants({});
    EXPECT_TRUE(fs::is_directory(out + "/diff"));
    EXPECT_TRUE(fs::is_directory(out + "/log"));
    try {
      Reports second(out);
      ADD_FAILURE() << "a second run was let into " << out;
    } catch (const ReportDirError& e) {
      EXPECT_NE(std::string(e.what()).find("another battery run (pid " + std::to_string(getpid())), std::string::npos)
          << e.what();
    }
  }
  EXPECT_FALSE(fs::exists(out + ".lock")) << "the lock outlived its run";
  EXPECT_NO_THROW(Reports{out});  // the earlier report moves aside
}

TEST(ReportHtml, NeedsNoNetworkAndLinksEachMutationsDiffAndLog) {
  RunRecord run;
  MutationResult r;
  r.mutation.id = "m<1>";
  run.mutations.push_back(r);
  const std::string html = music3::battery::report_html(run);
  EXPECT_EQ(html.find("http"), std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_NE(html.find("href=\"diff/m&lt;1&gt;.diff\""), std::string::npos) << html;
  EXPECT_NE(html.find("href=\"log/m&lt;1&gt;.log\""), std::string::npos) << html;
}

TEST(InDiff, ChoosesByTargetFileGateSourceAndCatalogueEntry) {
  auto m = [](std::string id, std::string file, std::vector<std::string> gates) {
    Mutation x;
    x.id = std::move(id);
    x.file = std::move(file);
    x.gates = std::move(gates);
    return x;
  };
  const std::vector<Mutation> candidates{m("pool", "engine/core/device_pool.cpp", {"pool_test"}),
                                         m("bf16", "engine/core/bf16.h", {"bf16_test"}),
                                         m("regen", "oracle_bridge/make.py", {"regen_gate"}),
                                         m("new", "engine/core/tensor.cpp", {"tensor_test"})};
  const std::map<std::string, std::vector<std::string>> sources{
      {"pool_test", {"gates/core/"}}, {"bf16_test", {"gates/core/"}}, {"regen_gate", {"gates/depth/", "oracle_bridge/"}},
      {"tensor_test", {"gates/core/"}}};
  auto ids = [](const std::vector<InDiffEntry>& v) {
    std::vector<std::string> out;
    for (const auto& e : v) out.push_back(e.id);
    return out;
  };
  using V = std::vector<std::string>;
  InDiff one_engine_file{"main", "abc", {"engine/core/device_pool.cpp"}, {}, {}, {}};
  choose_in_diff(candidates, sources, {}, one_engine_file);
  EXPECT_EQ(ids(one_engine_file.chosen), V{"pool"}) << "an engine file is only ever a target";
  EXPECT_EQ(ids(one_engine_file.skipped), (V{"bf16", "regen", "new"}));

  InDiff gate_source{"main", "abc", {"gates/core/bf16_test.cpp", "oracle_bridge/reproducible_cpu.py"}, {}, {}, {}};
  choose_in_diff(candidates, sources, {}, gate_source);
  EXPECT_EQ(ids(gate_source.chosen), (V{"pool", "bf16", "regen", "new"}));
  EXPECT_NE(gate_source.chosen[2].why.find("regen_gate"), std::string::npos) << gate_source.chosen[2].why;

  InDiff docs_and_entry{"main", "abc", {"README.md", "mutations/catalogue/engine.json"}, {}, {}, {}};
  choose_in_diff(candidates, sources, {{"new", "its catalogue entry is new or changed"}}, docs_and_entry);
  EXPECT_EQ(ids(docs_and_entry.chosen), V{"new"});

  InDiff nothing{"main", "abc", {}, {}, {}, {}};
  choose_in_diff(candidates, sources, {}, nothing);
  EXPECT_TRUE(nothing.chosen.empty());
  EXPECT_EQ(nothing.skipped.size(), candidates.size());
}

}  // namespace
