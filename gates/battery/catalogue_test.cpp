// battery_catalogue_test: the catalogue parser refuses every entry that could not
// run or could not be judged, naming it; selection by label, shard and --only; and
// the committed catalogues parse against the current source tree.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <functional>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "mutations/runner/catalogue.h"

namespace {

namespace fs = std::filesystem;
using music3::battery::Catalogue;
using music3::battery::CatalogueError;
using music3::battery::Expected;
using music3::battery::parse_catalogue;
using music3::battery::Selection;
using music3::battery::select_mutations;
using nlohmann::json;

class CatalogueTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string pattern = (fs::temp_directory_path() / "catalogue-test-XXXXXX").string();
    ASSERT_NE(mkdtemp(pattern.data()), nullptr);
    root_ = pattern;
    fs::create_directories(root_ + "/src");
    std::ofstream(root_ + "/src/a.cpp") << "int f() { return 1 + 2; }\nint g() { return 3; }\nint h() { return 3; }\n";
  }
  void TearDown() override { fs::remove_all(root_); }

  static json valid() {
    return json::parse(R"json({
      "setup": [{"targets": ["gen"], "command": "bin/gen out"}],
      "gates": {
        "g_cpu": {"executable": "a_test", "labels": ["cpu", "core"]},
        "g_gpu": {"executable": "b_test", "args": ["--x"], "labels": ["gpu"]}
      },
      "mutations": [
        {"id": "m-plus", "file": "src/a.cpp", "original": "1 + 2", "replacement": "1 - 2",
         "gates": ["g_cpu"], "expected": "killed", "description": "plus to minus"},
        {"id": "m-g", "file": "src/a.cpp", "original": "g() { return 3; }", "replacement": "g() { return 4; }",
         "gates": ["g_cpu", "g_gpu"], "expected": "survived", "reason": "known residual"},
        {"id": "m-f", "file": "src/a.cpp", "original": "int f()", "replacement": "long f()",
         "gates": ["g_gpu"], "expected": "killed"}
      ]})json");
  }

  // The CatalogueError message for j, or "" when it parses.
  std::string error_of(const json& j) {
    try {
      parse_catalogue(j, root_);
    } catch (const CatalogueError& e) {
      return e.what();
    }
    return "";
  }

  std::string root_;
};

TEST_F(CatalogueTest, ValidCatalogueParses) {
  Catalogue c = parse_catalogue(valid(), root_);
  ASSERT_EQ(c.mutations.size(), 3u);
  EXPECT_EQ(c.mutations[1].expected, Expected::Survived);
  EXPECT_EQ(c.mutations[1].reason, "known residual");
  EXPECT_EQ(c.gates.at("g_gpu").args, std::vector<std::string>{"--x"});
  ASSERT_EQ(c.setup.size(), 1u);
  EXPECT_EQ(c.setup[0].targets, std::vector<std::string>{"gen"});
}

TEST_F(CatalogueTest, OriginalMissingFromTheFileIsRefused) {
  json j = valid();
  j["mutations"][0]["original"] = "1 * 2";
  std::string e = error_of(j);
  EXPECT_NE(e.find("m-plus"), std::string::npos) << e;
  EXPECT_NE(e.find("occurs 0 times"), std::string::npos) << e;
}

TEST_F(CatalogueTest, OriginalOccurringTwiceIsRefused) {
  json j = valid();
  j["mutations"][0]["original"] = "return 3; }";
  std::string e = error_of(j);
  EXPECT_NE(e.find("occurs 2 times"), std::string::npos) << e;
}

TEST_F(CatalogueTest, SurvivorWithoutReasonIsRefused) {
  json j = valid();
  j["mutations"][1].erase("reason");
  std::string e = error_of(j);
  EXPECT_NE(e.find("m-g"), std::string::npos) << e;
  EXPECT_NE(e.find("reason"), std::string::npos) << e;
  j["mutations"][1]["reason"] = "";
  EXPECT_NE(error_of(j).find("reason"), std::string::npos);
}

TEST_F(CatalogueTest, UnknownGateIdIsRefused) {
  json j = valid();
  j["mutations"][0]["gates"] = {"g_cpu", "no_such_gate"};
  std::string e = error_of(j);
  EXPECT_NE(e.find("unknown gate id \"no_such_gate\""), std::string::npos) << e;
}

TEST_F(CatalogueTest, MalformedEntriesAreRefusedByName) {
  struct Case {
    const char* what;
    std::function<void(json&)> edit;
    const char* message;
  };
  const Case cases[] = {
      {"unknown key", [](json& j) { j["mutations"][0]["expect"] = "killed"; }, "unknown key \"expect\""},
      {"bad expected", [](json& j) { j["mutations"][0]["expected"] = "red"; }, "\"expected\" must be"},
      {"duplicate id", [](json& j) { j["mutations"][2]["id"] = "m-plus"; }, "duplicate id"},
      {"missing file", [](json& j) { j["mutations"][0]["file"] = "src/none.cpp"; }, "is not a file"},
      {"absolute file", [](json& j) { j["mutations"][0]["file"] = "/etc/hostname"; }, "is not a file"},
      {"no-op", [](json& j) { j["mutations"][0]["replacement"] = "1 + 2"; }, "equals \"original\""},
      {"no gates", [](json& j) { j["mutations"][0]["gates"] = json::array(); }, "\"gates\" is empty"},
      {"two labels", [](json& j) { j["gates"]["g_cpu"]["labels"] = {"cpu", "gpu"}; }, "exactly one of cpu, gpu"},
      {"no label", [](json& j) { j["gates"]["g_cpu"]["labels"] = {"core"}; }, "exactly one of cpu, gpu"},
      {"path executable", [](json& j) { j["gates"]["g_cpu"]["executable"] = "bin/a_test"; }, "plain name"},
      {"missing key", [](json& j) { j["mutations"][0].erase("replacement"); }, "missing key \"replacement\""},
      {"id with space", [](json& j) { j["mutations"][0]["id"] = "a b"; }, "\"id\" must be"},
  };
  for (const auto& c : cases) {
    json j = valid();
    c.edit(j);
    std::string e = error_of(j);
    EXPECT_NE(e.find(c.message), std::string::npos) << c.what << ": got \"" << e << "\"";
  }
}

std::vector<std::string> ids(const std::vector<music3::battery::Mutation>& ms) {
  std::vector<std::string> out;
  for (const auto& m : ms) out.push_back(m.id);
  return out;
}

TEST_F(CatalogueTest, SelectionByLabelShardAndOnly) {
  using music3::battery::select_mutations;
  using music3::battery::Shard;
  Catalogue c = parse_catalogue(valid(), root_);
  using V = std::vector<std::string>;
  EXPECT_EQ(ids(select_mutations(c, {})), (V{"m-plus", "m-g", "m-f"}));
  EXPECT_EQ(ids(select_mutations(c, {"cpu", {}, "", ""})), (V{"m-plus"}));
  EXPECT_EQ(ids(select_mutations(c, {"gpu", {}, "", ""})), (V{"m-g", "m-f"}));  // any gpu gate => gpu
  EXPECT_EQ(ids(select_mutations(c, {"", Shard{0, 2}, "", ""})), (V{"m-plus", "m-f"}));
  EXPECT_EQ(ids(select_mutations(c, {"", Shard{1, 2}, "", ""})), (V{"m-g"}));
  EXPECT_EQ(ids(select_mutations(c, {"gpu", Shard{1, 2}, "", ""})), (V{"m-f"}));  // shard after the label filter
  EXPECT_EQ(ids(select_mutations(c, {"", {}, "m-g", ""})), (V{"m-g"}));
  EXPECT_TRUE(select_mutations(c, {"cpu", {}, "m-g", ""}).empty());
  EXPECT_THROW(select_mutations(c, {"", {}, "nope", ""}), CatalogueError);
  EXPECT_EQ(ids(select_mutations(c, {"", {}, "m-f,m-plus", ""})), (V{"m-plus", "m-f"}));  // a list keeps catalogue order
  EXPECT_THROW(select_mutations(c, {"", {}, "m-f,nope", ""}), CatalogueError);  // every listed id must exist
}

TEST(CommittedCatalogues, ParseAgainstTheSourceTree) {
  const char* src = std::getenv("MUSIC3_SOURCE_DIR");
  ASSERT_NE(src, nullptr) << "MUSIC3_SOURCE_DIR is set by ctest";
  for (const char* name : {"mutations/catalogue", "mutations/smoke.json"}) {
    Catalogue c = music3::battery::load_catalogue(std::string(src) + "/" + name, src);
    EXPECT_FALSE(c.mutations.empty()) << name;
    bool has_canary = false;
    for (const auto& m : c.mutations) has_canary = has_canary || m.id == "forced-fail-canary";
    EXPECT_TRUE(has_canary) << name << " must hold the forced-fail canary";
  }
  // One file per component; --component selects exactly that file's mutations.
  const Catalogue c = music3::battery::load_catalogue(std::string(src) + "/mutations/catalogue", src);
  for (const char* component : {"battery", "depth", "engine", "tokenizer"}) {
    Selection s;
    s.component = component;
    const auto picked = select_mutations(c, s);
    EXPECT_FALSE(picked.empty()) << component;
    for (const auto& m : picked) EXPECT_EQ(m.component, component) << m.id;
  }
  Selection unknown;
  unknown.component = "nonesuch";
  EXPECT_THROW(select_mutations(c, unknown), CatalogueError);
  // A component's oracle set-up runs for its own gates only: the vocoder's GPU gate needs the
  // vocoder checkpoints, never the tokenizer's oracle (which needs the real Qwen vocabulary).
  int vocoder_steps = 0;
  for (const auto& step : c.setup) {
    const bool vocoder = step.command.find("oracle_bridge/vocoder/") != std::string::npos;
    EXPECT_EQ(step.needed_by({"gate_vocoder_device_cuda"}), vocoder) << step.command;
    EXPECT_TRUE(step.needed_by({"gate_tokenizer_ids", "gate_vocoder_parity"}) ||
                step.command.find("oracle_bridge/tokenizer/") == std::string::npos)
        << step.command;
    vocoder_steps += vocoder;
  }
  EXPECT_EQ(vocoder_steps, 1);
}

// A set-up step runs only for the gates of the file that declares it (needed_by), so a gate that runs the executable of
// a gate the step serves, declared elsewhere, would run without what the step writes: every gate of that executable
// must be served too. Session 35's GPU battery lost a call to such a twin (gate_depth_parity_cuda_norm_prologue, in
// engine.json), whose baseline ran without the depth checkpoints.
TEST(CommittedCatalogues, EverySetupServesEveryGateOfItsExecutables) {
  const char* src = std::getenv("MUSIC3_SOURCE_DIR");
  ASSERT_NE(src, nullptr) << "MUSIC3_SOURCE_DIR is set by ctest";
  const Catalogue c = music3::battery::load_catalogue(std::string(src) + "/mutations/catalogue", src);
  for (const auto& step : c.setup) {
    std::set<std::string> executables;
    for (const auto& g : step.for_gates) executables.insert(c.gates.at(g).executable);
    for (const auto& [id, gate] : c.gates)
      if (executables.count(gate.executable))
        EXPECT_TRUE(step.needed_by({id})) << id << " runs " << gate.executable << ", whose other gates need "
                                          << step.component << "'s set-up; declare it in " << step.component << ".json";
  }
}

// Sharding by component: the costliest first, each to the least-loaded shard; a component without a cost counts
// 8 s per mutation; fewer components than shards falls back to positions k, k + n, ...
TEST(ComponentShards, WholeComponentsDealtOutByCost) {
  using music3::battery::Mutation;
  using music3::battery::Shard;
  Catalogue c;
  for (const auto& [id, component] : std::vector<std::pair<std::string, std::string>>{
           {"a1", "a"}, {"b1", "b"}, {"a2", "a"}, {"c1", "c"}, {"c2", "c"}, {"d1", "d"}}) {
    Mutation m;
    m.id = id;
    m.component = component;
    c.mutations.push_back(m);
  }
  c.component_cost_s = {{"a", 10}, {"b", 7}, {"c", 5}};  // d: 1 mutation x 8 s
  using V = std::vector<std::string>;
  // a 10 -> 0; d 8 -> 1; b 7 -> 1 (15); c 5 -> 0 (15).
  EXPECT_EQ(ids(select_mutations(c, {"", Shard{0, 2}, "", ""})), (V{"a1", "a2", "c1", "c2"}));
  EXPECT_EQ(ids(select_mutations(c, {"", Shard{1, 2}, "", ""})), (V{"b1", "d1"}));
  const auto merged = select_mutations(c, {"", Shard{1, 2}, "", ""});
  EXPECT_EQ(merged[0].position, 1u) << "positions stay those of the unsharded selection";
  // Five shards, four components: positions k, k + 5.
  EXPECT_EQ(ids(select_mutations(c, {"", Shard{0, 5}, "", ""})), (V{"a1", "d1"}));
  EXPECT_EQ(ids(select_mutations(c, {"", Shard{4, 5}, "", ""})), (V{"c2"}));
}

// The committed catalogues: every component has a measured cost, and the two CPU shards cost within 10 % of
// each other.
TEST(CommittedCatalogues, EveryComponentHasACostAndTwoShardsBalance) {
  const char* src = std::getenv("MUSIC3_SOURCE_DIR");
  ASSERT_NE(src, nullptr) << "MUSIC3_SOURCE_DIR is set by ctest";
  const Catalogue c = music3::battery::load_catalogue(std::string(src) + "/mutations/catalogue", src);
  for (const auto& m : c.mutations) EXPECT_TRUE(c.component_cost_s.count(m.component)) << m.component;
  double total = 0, cost[2] = {0, 0};
  for (int k = 0; k < 2; ++k) {
    std::set<std::string> components;
    for (const auto& m : select_mutations(c, {"", music3::battery::Shard{k, 2}, "", ""})) components.insert(m.component);
    for (const auto& comp : components) cost[k] += c.component_cost_s.at(comp);
    total += cost[k];
  }
  EXPECT_LT(std::abs(cost[0] - cost[1]), 0.1 * total) << cost[0] << " s vs " << cost[1] << " s";
}

// Every source under engine/ that defines a CUDA kernel has a catalogued mutation, expected killed, aimed at a gate
// the GPU battery runs (label gpu): a kernel no mutation reaches is a kernel whose gates were never shown to see a
// defect in it. Whether each is killed is the H200 battery's verdict (reports/mutations/); this holds the catalogue
// to aiming one at every kernel, including kernels added later.
TEST(CommittedCatalogues, EveryCudaKernelSourceHasAMutationForTheGpuBattery) {
  const char* src = std::getenv("MUSIC3_SOURCE_DIR");
  ASSERT_NE(src, nullptr) << "MUSIC3_SOURCE_DIR is set by ctest";
  const Catalogue c = music3::battery::load_catalogue(std::string(src) + "/mutations/catalogue", src);
  std::set<std::string> aimed;
  for (const auto& m : c.mutations) {
    if (m.expected != Expected::Killed) continue;
    for (const auto& g : m.gates)
      if (c.gates.at(g).has_label("gpu")) aimed.insert(m.file);
  }
  int kernel_sources = 0;
  for (const auto& entry : fs::recursive_directory_iterator(fs::path(src) / "engine")) {
    const std::string ext = entry.path().extension().string();
    if (!entry.is_regular_file() || (ext != ".cu" && ext != ".cuh")) continue;
    std::ifstream in(entry.path());
    const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
    if (text.find("__global__") == std::string::npos) continue;
    ++kernel_sources;
    const std::string rel = fs::relative(entry.path(), src).generic_string();
    EXPECT_TRUE(aimed.count(rel)) << rel << " defines a CUDA kernel, but no catalogued mutation (expected killed, "
                                  << "aimed at a gpu gate) changes it";
  }
  EXPECT_GT(kernel_sources, 20) << "the walk over engine/ found too few kernel sources";
}

// Every catalogued gate is aimed at by a mutation expected killed: a gate no mutation aims at has never been shown
// to turn red. A GPU twin of a CPU gate (the same executable with --device cuda) is aimed at by an "-on-cuda" copy
// of a CPU mutation in code both devices run: listing the twin in the CPU mutation itself would move that mutation
// out of the CPU battery (--label cpu takes only mutations whose gates are all cpu).
TEST(CommittedCatalogues, EveryGateIsAimedAtByAMutationExpectedKilled) {
  const char* src = std::getenv("MUSIC3_SOURCE_DIR");
  ASSERT_NE(src, nullptr) << "MUSIC3_SOURCE_DIR is set by ctest";
  const Catalogue c = music3::battery::load_catalogue(std::string(src) + "/mutations/catalogue", src);
  std::set<std::string> aimed;
  for (const auto& m : c.mutations)
    if (m.expected == Expected::Killed) aimed.insert(m.gates.begin(), m.gates.end());
  for (const auto& [id, gate] : c.gates) EXPECT_TRUE(aimed.count(id)) << "no mutation expected killed aims at " << id;
}

TEST_F(CatalogueTest, SetupStepsRunForTheirOwnFilesGates) {
  const Catalogue c = parse_catalogue(valid(), root_);
  ASSERT_EQ(c.setup.size(), 1u);
  EXPECT_TRUE(c.setup[0].needed_by({"g_gpu"}));
  EXPECT_FALSE(c.setup[0].needed_by({"elsewhere"}));
  EXPECT_FALSE(c.setup[0].needed_by({}));
}

}  // namespace
