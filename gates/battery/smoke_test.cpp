// mutation_battery_smoke: build/bin/mutation-battery end to end, on a fresh
// `git clone --shared` of HEAD of the source tree, so that it tests what is
// committed, runs even while the user's tree is dirty, and can never touch it.
//  - the smoke catalogue (mutations/smoke.json: the canary, a real kill, an expected
//    survivor) meets every expectation and leaves a complete report and a clean clone;
//  - a flipped expectation (canary expected to survive) and a hanging mutant
//    (a timeout, never a kill) make the battery exit 1;
//  - a dirty tree is refused with exit 4 before anything is built;
//  - a gate that times out once in the final verification (the unmutated tree) is run once more with 4x its
//    limit, and the battery completes;
//  - SIGTERM during a mutation restores the file and ends the battery by SIGTERM.
#include <fcntl.h>
#include <gtest/gtest.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <thread>

#include <nlohmann/json.hpp>

#include "engine/core/exit_code.h"
#include "mutations/runner/patch.h"
#include "tools/process.h"

extern char** environ;

namespace {

namespace fs = std::filesystem;
using music3::tools::capture;
using music3::tools::capture_ok;
using music3::tools::ProcessResult;
using music3::battery::read_file_bytes;
using music3::tools::run_process;
using music3::battery::write_file_bytes;
using nlohmann::json;

class BatterySmoke : public ::testing::Test {
 protected:
  void SetUp() override {
    const char* src = std::getenv("MUSIC3_SOURCE_DIR");
    ASSERT_NE(src, nullptr) << "MUSIC3_SOURCE_DIR is set by ctest";
    std::string pattern = (fs::temp_directory_path() / "battery-smoke-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    tmp_ = fs::canonical(pattern).string();
    repo_ = tmp_ + "/repo";
    capture_ok({"git", "clone", "-q", "--shared", src, repo_}, "");
    ASSERT_TRUE(fs::exists(repo_ + "/mutations/smoke.json"))
        << "HEAD of " << src << " has no mutations/smoke.json: the smoke battery runs what is committed";
  }
  void TearDown() override {
    capture({"git", "-C", repo_, "worktree", "prune"}, "");
    fs::remove_all(tmp_);
  }

  std::vector<std::string> battery_argv(std::vector<std::string> args) const {
    std::vector<std::string> argv{MUTATION_BATTERY_EXE, "--repo", repo_, "--jobs", "2", "--out", tmp_ + "/out"};
    argv.insert(argv.end(), args.begin(), args.end());
    return argv;
  }
  ProcessResult battery(std::vector<std::string> args) {
    return run_process({battery_argv(std::move(args)), "", {{"TMPDIR", tmp_}}, tmp_ + "/battery.log", 0});
  }
  std::string battery_log() const { return read_file_bytes(tmp_ + "/battery.log"); }

  std::map<std::string, json> mutation_outcomes() const {
    std::map<std::string, json> out;
    std::ifstream in(tmp_ + "/out/outcomes.jsonl");
    for (std::string line; std::getline(in, line);) {
      json j = json::parse(line);
      if (j["phase"] == "mutation") out[j["id"]] = j;
    }
    return out;
  }
  std::vector<json> phase(const std::string& name) const {
    std::vector<json> out;
    std::ifstream in(tmp_ + "/out/outcomes.jsonl");
    for (std::string line; std::getline(in, line);) {
      json j = json::parse(line);
      if (j["phase"] == name) out.push_back(j);
    }
    return out;
  }
  std::string status(const std::string& repo) const {
    return capture_ok({"git", "-C", repo, "status", "--porcelain", "--untracked-files=all"}, "");
  }
  int worktrees() const {
    std::string list = capture_ok({"git", "-C", repo_, "worktree", "list", "--porcelain"}, "");
    int n = 0;
    for (size_t p = list.find("worktree "); p != std::string::npos; p = list.find("worktree ", p + 1)) ++n;
    return n;
  }
  // The smoke catalogue with the canary flipped to "survived", plus a canary mutant
  // that never returns (its gate must time out).
  std::string unexpected_catalogue() const {
    json c = json::parse(read_file_bytes(repo_ + "/mutations/smoke.json"));
    json mutations = json::array();
    for (auto m : c["mutations"]) {
      if (m["id"] != "forced-fail-canary") continue;
      m["expected"] = "survived";
      m["reason"] = "flipped by mutation_battery_smoke: must make the battery exit 1";
      mutations.push_back(m);
      m["id"] = "canary-hangs";
      m["replacement"] = "for (volatile int spin = 0;; spin = spin + 1) {}";
      m["expected"] = "killed";
      m.erase("reason");
      mutations.push_back(m);
    }
    c["mutations"] = mutations;
    std::string path = tmp_ + "/unexpected.json";
    write_file_bytes(path, c.dump(2));
    return path;
  }
  // The canary beside battery_slow_verify_gate, which sleeps past its verification limit (with --min-gate-timeout
  // 10: max(10 s, 5 x its baseline time)) on its third run: the baseline's, its own mutation's (an expected survivor), the final check's.
  std::string slow_verify_catalogue() const {
    json c = json::parse(read_file_bytes(repo_ + "/mutations/smoke.json"));
    c["gates"]["battery_slow_verify_gate"] = {{"executable", "battery_slow_verify_gate"},
                                              {"args", {"--slow-run", "3", "--slow-seconds", "12"}},
                                              {"labels", {"cpu"}}};
    json mutations = json::array();
    for (const auto& m : c["mutations"])
      if (m["id"] == "forced-fail-canary") mutations.push_back(m);
    mutations.push_back({{"id", "slow-verify-gate-message"},
                         {"description", "the slow gate's success message changes"},
                         {"file", "mutations/canary/slow_verify_gate_test.cpp"},
                         {"original", "SUCCEED() << \"run \" << run;"},
                         {"replacement", "SUCCEED() << \"pass \" << run;"},
                         {"gates", {"battery_slow_verify_gate"}},
                         {"expected", "survived"},
                         {"reason", "only a message changes: the gate passes either way"}});
    c["mutations"] = mutations;
    std::string path = tmp_ + "/slow_verify.json";
    write_file_bytes(path, c.dump(2));
    return path;
  }

  std::string tmp_, repo_;
};

TEST_F(BatterySmoke, SmokeCatalogueMeetsEveryExpectation) {
  ProcessResult r = battery({"--catalogue", repo_ + "/mutations/smoke.json", "--label", "cpu", "--verify-every", "2"});
  ASSERT_EQ(r.exit_code, 0) << r.describe() << "\n" << battery_log();
  json expected = json::parse(read_file_bytes(repo_ + "/mutations/smoke.json"));
  auto outcomes = mutation_outcomes();
  ASSERT_EQ(outcomes.size(), expected["mutations"].size());
  bool saw_survivor = false;
  for (const auto& m : expected["mutations"]) {
    const json& o = outcomes.at(m["id"]);
    EXPECT_EQ(o["outcome"], m["expected"]) << m["id"];
    EXPECT_TRUE(o["as_expected"].get<bool>()) << m["id"];
    EXPECT_EQ(o["build"]["exit_code"], 0) << m["id"];
    EXPECT_FALSE(o["objects_rebuilt"].empty()) << m["id"];
    EXPECT_TRUE(fs::exists(tmp_ + "/out/diff/" + m["id"].get<std::string>() + ".diff")) << m["id"];
    EXPECT_TRUE(fs::exists(tmp_ + "/out/log/" + m["id"].get<std::string>() + ".log")) << m["id"];
    saw_survivor = saw_survivor || m["expected"] == "survived";
  }
  EXPECT_EQ(outcomes.at("forced-fail-canary")["outcome"], "killed");
  EXPECT_TRUE(saw_survivor) << "the smoke catalogue keeps one expected survivor";

  auto baseline = phase("baseline"), verify = phase("verify");
  ASSERT_EQ(baseline.size(), 1u);
  ASSERT_EQ(verify.size(), 2u);  // after 2 mutations and at the end
  EXPECT_FALSE(baseline[0].contains("clean_rebuild_sha256")) << "the restore checks prove the rebuild, not a clean one";
  EXPECT_EQ(verify.back()["binary_sha256"], baseline[0]["binary_sha256"]) << "restored binaries equal the baseline";
  EXPECT_TRUE(verify.back()["ok"].get<bool>());
  EXPECT_FALSE(verify[0]["gates_run"].get<bool>()) << "a check between mutations stops at the hashes";
  EXPECT_TRUE(verify[0]["gates"].empty());
  EXPECT_EQ(verify[0]["binary_sha256"], baseline[0]["binary_sha256"]);
  ASSERT_TRUE(verify.back()["gates_run"].get<bool>()) << "the final check reruns every gate";
  EXPECT_EQ(verify.back()["gates"].size(), expected["gates"].size());
  for (const auto& g : verify.back()["gates"]) EXPECT_EQ(g["verdict"], "passed") << g["gate"];

  std::string summary = read_file_bytes(tmp_ + "/out/summary.md");
  EXPECT_NE(summary.find("Every mutation met its expected outcome."), std::string::npos);
  json stryker = json::parse(read_file_bytes(tmp_ + "/out/mutation.json"));
  EXPECT_EQ(stryker["schemaVersion"], "1");
  EXPECT_TRUE(stryker["files"].contains("mutations/canary/canary_value.cpp"));
  EXPECT_EQ(json::parse(read_file_bytes(tmp_ + "/out/mutants.json")).size(), expected["mutations"].size());

  EXPECT_EQ(status(repo_), "") << "the battery left the repository changed";
  EXPECT_EQ(worktrees(), 1) << "the battery's worktree was not removed";
  for (const auto& e : fs::directory_iterator(tmp_))
    EXPECT_NE(e.path().filename().string().rfind("music3-battery-", 0), 0u) << "left behind: " << e.path();
}

TEST_F(BatterySmoke, UnexpectedOutcomesFailTheBattery) {
  // --min-gate-timeout 10 keeps the hanging canary's wait at 10 s (the default floor is a minute).
  ProcessResult r = battery({"--catalogue", unexpected_catalogue(), "--verify-every", "0", "--min-gate-timeout", "10"});
  EXPECT_EQ(r.exit_code, music3::exit_code::kFoundProblems) << r.describe() << "\n" << battery_log();
  auto outcomes = mutation_outcomes();
  ASSERT_EQ(outcomes.size(), 2u) << battery_log();
  EXPECT_EQ(outcomes.at("forced-fail-canary")["outcome"], "killed");
  EXPECT_FALSE(outcomes.at("forced-fail-canary")["as_expected"].get<bool>());
  EXPECT_EQ(outcomes.at("canary-hangs")["outcome"], "timeout") << "a timeout is never a kill";
  EXPECT_FALSE(outcomes.at("canary-hangs")["as_expected"].get<bool>());
  EXPECT_TRUE(phase("verify").back()["ok"].get<bool>());
  EXPECT_EQ(status(repo_), "");
}

TEST_F(BatterySmoke, AVerificationGateThatTimesOutIsRunOnceMoreWithFourTimesTheLimit) {
  ProcessResult r = battery({"--catalogue", slow_verify_catalogue(), "--verify-every", "0", "--min-gate-timeout", "10"});
  ASSERT_EQ(r.exit_code, 0) << r.describe() << "\n" << battery_log();
  const auto verify = phase("verify");
  ASSERT_EQ(verify.size(), 1u);
  EXPECT_TRUE(verify[0]["ok"].get<bool>()) << verify[0].dump();
  bool saw_slow_gate = false;
  for (const auto& g : verify[0]["gates"]) {
    if (g["gate"] != "battery_slow_verify_gate") continue;
    saw_slow_gate = true;
    EXPECT_EQ(g["verdict"], "passed");
    EXPECT_DOUBLE_EQ(g["timeout_s"].get<double>(), 40.0) << "the retry's limit: 4 x max(10 s, 5 x baseline)";
  }
  EXPECT_TRUE(saw_slow_gate);
  const std::string log = read_file_bytes(tmp_ + "/out/log/verify-2.log");
  EXPECT_NE(log.find("timed out at 10"), std::string::npos) << log;
  EXPECT_NE(log.find("once more with 4"), std::string::npos) << log;
  EXPECT_EQ(status(repo_), "");
}

TEST_F(BatterySmoke, DirtyTreeIsRefused) {
  std::string file = repo_ + "/mutations/canary/canary_value.cpp";
  std::string edited = read_file_bytes(file) + "// an uncommitted edit\n";
  write_file_bytes(file, edited);
  ProcessResult r = battery({"--catalogue", repo_ + "/mutations/smoke.json"});
  EXPECT_EQ(r.exit_code, music3::exit_code::kDirtyTree) << r.describe() << "\n" << battery_log();
  EXPECT_NE(battery_log().find("canary_value.cpp"), std::string::npos) << "the refusal names the file";
  EXPECT_EQ(read_file_bytes(file), edited);
  EXPECT_EQ(worktrees(), 1);
  EXPECT_FALSE(fs::exists(tmp_ + "/out/mutants.json"));
}

TEST_F(BatterySmoke, SigtermRestoresTheMutatedFile) {
  // The hanging canary mutant: SIGTERM arrives while the mutant is applied.
  std::vector<std::string> argv =
      battery_argv({"--catalogue", unexpected_catalogue(), "--only", "canary-hangs", "--keep-worktree"});
  std::vector<char*> args;
  for (auto& a : argv) args.push_back(a.data());
  args.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, (tmp_ + "/battery.log").c_str(),
                                   O_WRONLY | O_CREAT | O_TRUNC, 0644);
  setenv("TMPDIR", tmp_.c_str(), 1);
  pid_t pid = 0;
  ASSERT_EQ(posix_spawn(&pid, args[0], &actions, nullptr, args.data(), environ), 0);
  posix_spawn_file_actions_destroy(&actions);

  std::string diff = tmp_ + "/out/diff/canary-hangs.diff";
  auto t0 = std::chrono::steady_clock::now();
  while (!fs::exists(diff) && std::chrono::steady_clock::now() - t0 < std::chrono::minutes(5))
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  ASSERT_TRUE(fs::exists(diff)) << battery_log();
  std::this_thread::sleep_for(std::chrono::seconds(2));  // into the build or the hanging gate
  kill(pid, SIGTERM);
  int st = 0;
  waitpid(pid, &st, 0);
  EXPECT_TRUE(WIFSIGNALED(st) && WTERMSIG(st) == SIGTERM) << "status " << st << "\n" << battery_log();

  std::string log = battery_log();
  size_t at = log.find("worktree ");
  ASSERT_NE(at, std::string::npos) << log;
  std::string wt = log.substr(at + 9, log.find(',', at) - at - 9);
  ASSERT_TRUE(fs::exists(wt + "/mutations/canary/canary_value.cpp")) << "--keep-worktree keeps " << wt;
  EXPECT_EQ(read_file_bytes(wt + "/mutations/canary/canary_value.cpp"),
            read_file_bytes(repo_ + "/mutations/canary/canary_value.cpp"))
      << "the mutated file was not restored";
  EXPECT_EQ(status(wt), "");
  EXPECT_NE(read_file_bytes(tmp_ + "/out/summary.md").find("interrupted by signal"), std::string::npos);
  capture({"git", "-C", repo_, "worktree", "remove", "--force", wt}, "");
}

}  // namespace
