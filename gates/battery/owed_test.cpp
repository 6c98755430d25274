// battery_owed_test: `mutation-battery owed`'s rule (owed.h) on a catalogue of canary mutations and verdicts made
// here: no verdict, the newest verdict as expected or not (older ones do not count), a changed replacement, a
// narrowed gate list judged again from the recorded gates, a widened one naming the gate that never ran, labels
// (a CPU report's verdict does not count for a GPU mutation, an "all" report's does); and scan_reports() on report
// folders written by the battery's own writer, with a folder it cannot read listed rather than fatal.
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "mutations/runner/owed.h"
#include "mutations/runner/reports.h"

namespace music3::battery {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

const std::string kFile = "mutations/canary/canary_value.cpp";
const std::string kOriginal = "return 1729;";

std::string source_dir() {
  const char* src = std::getenv("MUSIC3_SOURCE_DIR");
  return src ? src : ".";
}

json entry(const std::string& id, const std::vector<std::string>& gates, const std::string& replacement = "return 1;") {
  return {{"id", id},           {"description", "owed fixture"}, {"file", kFile},
          {"original", kOriginal}, {"replacement", replacement},  {"gates", gates},
          {"expected", "killed"}};
}

Catalogue fixture() {
  json gpu_gate = {{"executable", "battery_canary_gate"}, {"labels", {"gpu"}}};
  json j = {{"gates",
             {{"canary_cpu", {{"executable", "battery_canary_gate"}, {"labels", {"cpu"}}}},
              {"canary_gpu", gpu_gate},
              {"canary_gpu_twin", gpu_gate}}},
            {"mutations",
             {entry("unjudged", {"canary_gpu"}), entry("current", {"canary_gpu"}), entry("newest-missed", {"canary_gpu"}),
              entry("older-missed", {"canary_gpu"}), entry("replacement-changed", {"canary_gpu"}, "return 2;"),
              entry("gates-narrowed", {"canary_gpu"}), entry("gates-widened", {"canary_gpu", "canary_gpu_twin"}),
              entry("cpu-only", {"canary_cpu"}), entry("judged-on-cpu-report", {"canary_gpu"}),
              entry("judged-on-all-report", {"canary_gpu"})}}};
  return parse_catalogue(j, source_dir(), "canary");
}

GateResult gate(const std::string& name, bool failed) {
  GateResult g;
  g.gate = name;
  g.verdict = failed ? GateVerdict::Failed : GateVerdict::Passed;
  return g;
}

// A verdict on the fixture's mutation `id` (its catalogue entry, or `changed` in its place).
RecordedVerdict verdict(const Catalogue& c, const std::string& id, const std::string& date, const std::string& label,
                        bool as_expected, std::vector<GateResult> gates = {}, const Mutation* changed = nullptr) {
  RecordedVerdict v;
  v.report = "reports/" + date + "-" + label;
  v.date = date;
  v.label = label;
  for (const auto& m : c.mutations)
    if (m.id == id) v.result.mutation = changed ? *changed : m;
  if (gates.empty())
    for (const auto& g : v.result.mutation.gates) gates.push_back(gate(g, as_expected));
  v.result.gates = gates;
  v.result.outcome = classify(gates);
  v.result.as_expected = as_expected;
  return v;
}

std::map<std::string, std::string> reasons(const OwedSummary& s) {
  std::map<std::string, std::string> r;
  for (const auto& o : s.owed) r[o.id] = o.reason;
  return r;
}

TEST(Owed, EachRuleOnTheFixture) {
  const Catalogue c = fixture();
  Mutation before = c.mutations[4];  // replacement-changed, as it was judged
  before.replacement = "return 1;";
  Mutation wide = c.mutations[5];  // gates-narrowed, judged with one more gate
  wide.gates = {"canary_gpu", "canary_gpu_twin"};
  Mutation narrow = c.mutations[6];  // gates-widened, judged with one gate fewer
  narrow.gates = {"canary_gpu"};
  const std::vector<RecordedVerdict> verdicts = {
      verdict(c, "current", "2026-12-01", "gpu", true),
      verdict(c, "newest-missed", "2026-12-01", "gpu", true),
      verdict(c, "newest-missed", "2026-12-02", "gpu", false),
      verdict(c, "older-missed", "2026-12-01", "gpu", false),
      verdict(c, "older-missed", "2026-12-02", "gpu", true),
      verdict(c, "replacement-changed", "2026-12-01", "gpu", true, {}, &before),
      verdict(c, "gates-narrowed", "2026-12-01", "gpu", false,
              {gate("canary_gpu", true), gate("canary_gpu_twin", false)}, &wide),
      verdict(c, "gates-widened", "2026-12-01", "gpu", true, {gate("canary_gpu", true)}, &narrow),
      verdict(c, "cpu-only", "2026-12-01", "cpu", true),
      verdict(c, "judged-on-cpu-report", "2026-12-01", "cpu", true),
      verdict(c, "judged-on-all-report", "2026-12-01", "all", true),
  };
  const OwedSummary gpu = owed_mutations(c, verdicts, "gpu");
  EXPECT_EQ(gpu.catalogued, 9u);
  const auto r = reasons(gpu);
  EXPECT_EQ(r.size(), 5u);
  EXPECT_EQ(r.at("unjudged"), "no verdict in a readable report");
  EXPECT_EQ(r.at("newest-missed"), "missed its expectation (survived)");
  EXPECT_EQ(r.at("replacement-changed"), "its replacement changed since");
  EXPECT_EQ(r.at("gates-widened"), "its gate list changed since: canary_gpu_twin was not run");
  EXPECT_EQ(r.at("judged-on-cpu-report"), "no verdict in a readable report");
  for (const char* current : {"current", "older-missed", "gates-narrowed", "judged-on-all-report"})
    EXPECT_EQ(r.count(current), 0u) << current;
  for (const auto& o : gpu.owed) EXPECT_EQ(o.label, "gpu") << o.id;

  const OwedSummary cpu = owed_mutations(c, verdicts, "cpu");
  EXPECT_EQ(cpu.catalogued, 1u);
  EXPECT_TRUE(cpu.owed.empty());
  EXPECT_EQ(owed_mutations(c, verdicts, "").catalogued, 10u);
  EXPECT_EQ(owed_mutations(c, {}, "").owed.size(), 10u);
}

// An owed mutation names the components whose set-up its gates need: the set-up of the file that declares a gate it
// names, none for a mutation whose gates come from a file without set-up steps, and each component once.
TEST(Owed, EachOwedMutationNamesTheSetupsItsGatesNeed) {
  const fs::path dir = fs::temp_directory_path() / ("owed-setups-" + std::to_string(::getpid()));
  fs::create_directories(dir);
  const json oracle_gate = {{"executable", "battery_canary_gate"}, {"labels", {"gpu"}}};
  const json files[] = {
      {{"setup", {{{"command", "true oracle"}}}}, {"gates", {{"oracle_a", oracle_gate}, {"oracle_b", oracle_gate}}},
       {"mutations", json::array()}},
      {{"gates", {{"plain", oracle_gate}}},
       {"mutations",
        {entry("needs-oracle", {"oracle_a", "oracle_b"}), entry("needs-nothing", {"plain"}),
         entry("needs-oracle-too", {"plain", "oracle_b"})}}}};
  std::ofstream(dir / "oracle.json") << files[0].dump();
  std::ofstream(dir / "plain.json") << files[1].dump();
  const Catalogue c = load_catalogue(dir.string(), source_dir());
  const OwedSummary s = owed_mutations(c, {}, "gpu");
  std::map<std::string, std::vector<std::string>> setups;
  for (const auto& o : s.owed) setups[o.id] = o.setups;
  EXPECT_EQ(setups["needs-oracle"], std::vector<std::string>{"oracle"});
  EXPECT_EQ(setups["needs-oracle-too"], std::vector<std::string>{"oracle"});
  EXPECT_TRUE(setups["needs-nothing"].empty());
  EXPECT_EQ(setups.size(), 3u);
  fs::remove_all(dir);
}

TEST(Owed, ScanReadsTheBatterysReportsAndListsTheRest) {
  std::string root = (fs::temp_directory_path() / "battery-owed-XXXXXX").string();
  ASSERT_NE(mkdtemp(root.data()), nullptr);
  const Catalogue c = fixture();
  for (const auto& [name, date, label] : {std::tuple{"a", "2026-12-01T10:00:00Z", "gpu"},
                                          std::tuple{"b", "2026-12-02T10:00:00Z", "cpu"}}) {
    RunRecord run;
    run.provenance.date = date;
    run.provenance.label = label;
    run.complete = true;
    MutationResult m;
    m.mutation = c.mutations[1];
    m.outcome = Outcome::Killed;
    m.as_expected = true;
    m.gates = {gate("canary_gpu", true)};
    m.start.line = 5;
    run.mutations = {m};
    Reports rep(root + "/component/" + name);
    rep.write_mutants(run.mutations);
    rep.append_outcome(to_json(m));
    rep.write_final(run);
  }
  fs::create_directories(root + "/old");
  std::ofstream(root + "/old/outcomes.jsonl") << "{\"phase\": \"baseline\"}\n";

  const ReportScan scan = scan_reports(root);
  EXPECT_EQ(scan.reports_read, 2u);
  ASSERT_EQ(scan.unreadable.size(), 1u);
  EXPECT_NE(scan.unreadable[0].find(root + "/old"), std::string::npos) << scan.unreadable[0];
  ASSERT_EQ(scan.verdicts.size(), 2u);
  EXPECT_EQ(scan.verdicts[0].label, "gpu");
  EXPECT_EQ(scan.verdicts[0].date, "2026-12-01T10:00:00Z");
  EXPECT_EQ(scan.verdicts[0].result.mutation.id, "current");
  EXPECT_TRUE(scan.verdicts[0].result.as_expected);
  const OwedSummary s = owed_mutations(c, scan.verdicts, "gpu");
  EXPECT_EQ(reasons(s).count("current"), 0u);
  EXPECT_THROW(scan_reports(root + "/missing"), ReportDirError);
  fs::remove_all(root);
}

}  // namespace
}  // namespace music3::battery
