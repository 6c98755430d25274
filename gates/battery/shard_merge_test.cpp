// mutation_battery_shard_merge: shards and --in-diff end to end, on a `git clone --shared` of HEAD (as the
// smoke test), with a tiny catalogue written here: three mutations of the canary (two killed, one expected
// survivor), so that each battery run builds one small gate.
//  - `--shard 0/2` and `--shard 1/2`, run separately and merged, give the same plan, the same outcomes
//    (gate verdicts, failing cases, mutant hashes, positions) and the same Stryker statuses as one
//    unsharded run; the merge refuses overlapping shards, a missing shard and shards built by another compiler
//    (exit 5), and takes shards whose binaries hash differently (each builds in its own folder), naming each
//    executable with its shard;
//  - `--in-diff`: a change to nothing chooses nothing without building; a change outside the catalogue's
//    files and gate sources chooses nothing and lists every mutation as skipped, with the gates' sources; an
//    edit of one catalogue entry chooses that mutation only; an unknown BASE exits 5.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>

#include <nlohmann/json.hpp>

#include "engine/core/exit_code.h"
#include "mutations/runner/patch.h"
#include "tools/process.h"

namespace {

namespace fs = std::filesystem;
using music3::battery::read_file_bytes;
using music3::battery::write_file_bytes;
using music3::tools::capture;
using music3::tools::capture_ok;
using music3::tools::ProcessResult;
using music3::tools::run_process;
using nlohmann::json;

std::string tmp, repo, catalogue;
ProcessResult unsharded, shard0, shard1, merged;

std::string log_of(const std::string& name) { return read_file_bytes(tmp + "/" + name + ".log"); }

ProcessResult battery(const std::string& name, std::vector<std::string> args) {
  std::vector<std::string> argv{MUTATION_BATTERY_EXE};
  argv.insert(argv.end(), args.begin(), args.end());
  return run_process({argv, "", {{"TMPDIR", tmp}}, tmp + "/" + name + ".log", 0});
}

ProcessResult run(const std::string& name, std::vector<std::string> args) {
  std::vector<std::string> argv{"--repo", repo, "--jobs", "2", "--verify-every", "0", "--catalogue", catalogue,
                                "--out", tmp + "/" + name};
  argv.insert(argv.end(), args.begin(), args.end());
  return battery(name, argv);
}

ProcessResult merge(const std::string& name, const std::vector<std::string>& shards) {
  std::vector<std::string> argv{"merge", tmp + "/" + name};
  for (const auto& s : shards) argv.push_back(tmp + "/" + s);
  return battery(name, argv);
}

json mutation(const std::string& id, const std::string& original, const std::string& replacement,
              const std::string& expected) {
  json m = {{"id", id},
            {"description", "shard-merge fixture"},
            {"file", "mutations/canary/canary_value.cpp"},
            {"original", original},
            {"replacement", replacement},
            {"gates", {"battery_canary_gate"}},
            {"expected", expected}};
  if (expected == "survived") m["reason"] = "a fixture: an unused function that no gate calls";
  return m;
}

class ShardMerge : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    const char* src = std::getenv("MUSIC3_SOURCE_DIR");
    ASSERT_NE(src, nullptr) << "MUSIC3_SOURCE_DIR is set by ctest";
    std::string pattern = (fs::temp_directory_path() / "battery-shards-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    tmp = fs::canonical(pattern).string();
    repo = tmp + "/repo";
    capture_ok({"git", "clone", "-q", "--shared", src, repo}, "");
    json c = {{"gates", {{"battery_canary_gate", {{"executable", "battery_canary_gate"}, {"labels", {"cpu"}}}}}},
              {"mutations",
               {mutation("canary-down", "return 1729;", "return 1728;", "killed"),
                mutation("canary-up", "return 1729;", "return 1730;", "killed"),
                mutation("canary-twin", "return 1729; }", "return 1729; }\nint canary_twin() { return 7; }", "survived")}}};
    catalogue = tmp + "/fixture.json";
    write_file_bytes(catalogue, c.dump(2));
    unsharded = run("unsharded", {});
    shard0 = run("shard0", {"--shard", "0/2"});
    shard1 = run("shard1", {"--shard", "1/2"});
    merged = merge("merged", {"shard1", "shard0"});
  }
  static void TearDownTestSuite() {
    capture({"git", "-C", repo, "worktree", "prune"}, "");
    fs::remove_all(tmp);
  }

  static json read_json(const std::string& path) { return json::parse(read_file_bytes(path)); }
  // id -> the outcome line, without what differs between any two runs (times, temporary paths).
  static std::map<std::string, json> outcomes(const std::string& name) {
    std::map<std::string, json> out;
    std::ifstream in(tmp + "/" + name + "/outcomes.jsonl");
    for (std::string line; std::getline(in, line);) {
      json j = json::parse(line);
      if (j["phase"] != "mutation") continue;
      j.erase("seconds");
      j.erase("objects_rebuilt");
      j.erase("build");
      for (auto& g : j["gates"]) g.erase("process"), g.erase("timeout_s");
      out[j["id"]] = j;
    }
    return out;
  }
  // file -> mutant id -> (status, location).
  static std::map<std::string, json> stryker(const std::string& name) {
    std::map<std::string, json> out;
    for (const auto& [file, f] : read_json(tmp + "/" + name + "/mutation.json")["files"].items())
      for (const auto& m : f["mutants"]) out[file + ":" + m["id"].get<std::string>()] = {m["status"], m["location"]};
    return out;
  }
};

TEST_F(ShardMerge, TwoMergedShardsGiveTheOutcomesOfOneUnshardedRun) {
  ASSERT_EQ(unsharded.exit_code, 0) << log_of("unsharded");
  ASSERT_EQ(shard0.exit_code, 0) << log_of("shard0");
  ASSERT_EQ(shard1.exit_code, 0) << log_of("shard1");
  ASSERT_EQ(merged.exit_code, 0) << log_of("merged");
  EXPECT_EQ(read_json(tmp + "/shard0/mutants.json").size(), 2u) << "positions 0 and 2";
  EXPECT_EQ(read_json(tmp + "/shard1/mutants.json").size(), 1u) << "position 1";
  EXPECT_EQ(read_json(tmp + "/merged/mutants.json"), read_json(tmp + "/unsharded/mutants.json"));

  auto one = outcomes("unsharded"), both = outcomes("merged");
  ASSERT_EQ(one.size(), 3u);
  EXPECT_EQ(both, one);
  EXPECT_EQ(one.at("canary-down")["outcome"], "killed");
  EXPECT_EQ(one.at("canary-twin")["outcome"], "survived");
  EXPECT_EQ(stryker("merged"), stryker("unsharded"));

  // Both shards built the canary gate in different worktrees: one baseline, so the merge accepted it.
  std::ifstream in(tmp + "/merged/outcomes.jsonl");
  int baselines = 0;
  for (std::string line; std::getline(in, line);) {
    json j = json::parse(line);
    if (j["phase"] == "baseline") {
      ++baselines;
      EXPECT_TRUE(j.contains("shard"));
    }
  }
  EXPECT_EQ(baselines, 2);
  std::string summary = read_file_bytes(tmp + "/merged/summary.md");
  EXPECT_NE(summary.find("Every mutation met its expected outcome."), std::string::npos) << summary;
  EXPECT_NE(summary.find("## Shards"), std::string::npos);
  for (const char* id : {"canary-down", "canary-up", "canary-twin"}) {
    EXPECT_NE(summary.find(id), std::string::npos) << id;
    EXPECT_TRUE(fs::exists(tmp + "/merged/diff/" + std::string(id) + ".diff")) << id;
    EXPECT_TRUE(fs::exists(tmp + "/merged/log/" + std::string(id) + ".log")) << id;
  }
  json meta = read_json(tmp + "/merged/run.json");
  EXPECT_TRUE(meta["complete"].get<bool>());
  EXPECT_EQ(meta["shards"].size(), 2u);
}

TEST_F(ShardMerge, MergeRefusesOverlappingMissingAndForeignShards) {
  ASSERT_EQ(shard0.exit_code, 0) << log_of("shard0");
  ProcessResult r = merge("overlap", {"shard0", "shard0"});
  EXPECT_EQ(r.exit_code, music3::exit_code::kBadInput);
  EXPECT_NE(log_of("overlap").find("overlapping mutants"), std::string::npos) << log_of("overlap");

  r = merge("missing", {"shard0"});
  EXPECT_EQ(r.exit_code, music3::exit_code::kBadInput);
  EXPECT_NE(log_of("missing").find("shard 1/2 is missing"), std::string::npos) << log_of("missing");

  // Shard 1 built by another compiler: a foreign shard.
  fs::copy(tmp + "/shard1", tmp + "/foreign", fs::copy_options::recursive);
  json meta = read_json(tmp + "/shard1/run.json");
  meta["provenance"]["cxx"] = "/usr/bin/c++: c++ (another) 99.0";
  write_file_bytes(tmp + "/foreign/run.json", meta.dump(2));
  r = merge("different", {"shard0", "foreign"});
  EXPECT_EQ(r.exit_code, music3::exit_code::kBadInput);
  EXPECT_NE(log_of("different").find("has C++ compiler"), std::string::npos) << log_of("different");
}

TEST_F(ShardMerge, MergeKeepsEachShardsHashesWhenTheyDiffer) {
  // Shard 1's canary gate hashing otherwise (built in another folder, with a path embedded): still one run.
  ASSERT_EQ(shard1.exit_code, 0) << log_of("shard1");
  const std::string other(64, '0');
  fs::copy(tmp + "/shard1", tmp + "/elsewhere", fs::copy_options::recursive);
  std::ifstream in(tmp + "/shard1/outcomes.jsonl");
  std::string lines;
  for (std::string line; std::getline(in, line);) {
    json j = json::parse(line);
    if (j["phase"] == "baseline" || j["phase"] == "verify") j["binary_sha256"]["battery_canary_gate"] = other;
    lines += j.dump() + "\n";
  }
  write_file_bytes(tmp + "/elsewhere/outcomes.jsonl", lines);
  ProcessResult r = merge("elsewhere-merged", {"shard0", "elsewhere"});
  ASSERT_EQ(r.exit_code, 0) << log_of("elsewhere-merged");
  std::string summary = read_file_bytes(tmp + "/elsewhere-merged/summary.md");
  EXPECT_NE(summary.find("battery_canary_gate (shard 1/2) | `" + other + "` | identical"), std::string::npos) << summary;
  EXPECT_NE(summary.find("battery_canary_gate (shard 0/2) |"), std::string::npos) << summary;
  EXPECT_EQ(summary.find("DIFFERS"), std::string::npos) << summary;
}

TEST_F(ShardMerge, InDiffChoosesOnlyWhatTheChangeTouches) {
  // No change at all: nothing chosen, nothing built.
  ProcessResult r = run("in-diff-none", {"--in-diff", "HEAD", "--label", "cpu"});
  ASSERT_EQ(r.exit_code, 0) << log_of("in-diff-none");
  json meta = read_json(tmp + "/in-diff-none/run.json");
  EXPECT_TRUE(meta["in_diff"]["chosen"].empty());
  EXPECT_EQ(meta["in_diff"]["skipped"].size(), 3u);
  EXPECT_EQ(log_of("in-diff-none").find("baseline"), std::string::npos) << "nothing may be built";

  // A change to a file that is neither a target nor a gate source (the README): nothing chosen; the
  // canary gate's sources are its own folder and the canary's, never engine/.
  std::string readme = repo + "/README.md";
  write_file_bytes(readme, read_file_bytes(readme) + "\nan edit\n");
  capture_ok({"git", "-C", repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qam", "readme"}, "");
  r = run("in-diff-readme", {"--in-diff", "HEAD~1", "--label", "cpu"});
  ASSERT_EQ(r.exit_code, 0) << log_of("in-diff-readme");
  meta = read_json(tmp + "/in-diff-readme/run.json");
  EXPECT_EQ(meta["in_diff"]["changed"], json({"README.md"}));
  EXPECT_TRUE(meta["in_diff"]["chosen"].empty());
  EXPECT_EQ(meta["in_diff"]["skipped"].size(), 3u);
  auto sources = meta["in_diff"]["gate_sources"]["battery_canary_gate"].get<std::vector<std::string>>();
  EXPECT_NE(std::find(sources.begin(), sources.end(), "mutations/canary/"), sources.end()) << meta.dump(1);
  for (const auto& s : sources) EXPECT_NE(s.rfind("engine/", 0), 0u) << s;
  std::string summary = read_file_bytes(tmp + "/in-diff-readme/summary.md");
  EXPECT_NE(summary.find("No mutation was selected"), std::string::npos) << summary;
  EXPECT_NE(summary.find("`canary-twin`: the change touches neither"), std::string::npos) << summary;
  EXPECT_EQ(read_json(tmp + "/in-diff-readme/mutants.json"), json::array());

  // A catalogue committed in the repository: only the entry the change edits is chosen (the run's label,
  // gpu, keeps none of these cpu mutations, so nothing is built).
  const std::string committed = repo + "/mutations/fixture.json";
  fs::copy_file(catalogue, committed);
  auto commit = [&](const std::string& what) {
    capture_ok({"git", "-C", repo, "add", "mutations/fixture.json"}, "");
    capture_ok({"git", "-C", repo, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", what}, "");
  };
  commit("fixture catalogue");
  json edited = read_json(committed);
  edited["mutations"][1]["replacement"] = "return 1731;";
  write_file_bytes(committed, edited.dump(2));
  commit("edit canary-up");
  r = battery("in-diff-entry", {"--repo", repo, "--catalogue", committed, "--in-diff", "HEAD~1", "--label", "gpu",
                                "--out", tmp + "/in-diff-entry"});
  ASSERT_EQ(r.exit_code, 0) << log_of("in-diff-entry");
  meta = read_json(tmp + "/in-diff-entry/run.json");
  ASSERT_EQ(meta["in_diff"]["chosen"].size(), 1u) << meta.dump(1);
  EXPECT_EQ(meta["in_diff"]["chosen"][0]["id"], "canary-up");
  EXPECT_EQ(meta["in_diff"]["chosen"][0]["why"], "its catalogue entry is new or changed");
  EXPECT_NE(read_file_bytes(tmp + "/in-diff-entry/summary.md").find("(not in this run: another label or shard)"),
            std::string::npos);

  r = run("in-diff-bad", {"--in-diff", "no-such-revision"});
  EXPECT_EQ(r.exit_code, music3::exit_code::kBadInput);
  EXPECT_NE(log_of("in-diff-bad").find("no-such-revision"), std::string::npos);
}

}  // namespace
