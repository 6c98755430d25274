#include "mutations/runner/report_read.h"

#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include <nlohmann/json.hpp>

#include "mutations/runner/reports.h"

namespace music3::battery {
namespace {

using nlohmann::json;

json read_json(const std::string& dir, const std::string& name) {
  std::ifstream in(dir + "/" + name);
  if (!in) throw ReportDirError(dir + ": no " + name + " (not a battery report, or one from before run.json)");
  try {
    return json::parse(in);
  } catch (const json::parse_error& e) {
    throw ReportDirError(dir + "/" + name + " is not valid JSON: " + e.what());
  }
}

std::vector<json> read_lines(const std::string& dir, const std::string& name) {
  std::ifstream in(dir + "/" + name);
  if (!in) throw ReportDirError(dir + ": no " + name);
  std::vector<json> out;
  for (std::string line; std::getline(in, line);) {
    if (line.empty()) continue;
    try {
      out.push_back(json::parse(line));
    } catch (const json::parse_error& e) {
      throw ReportDirError(dir + "/" + name + " holds a line that is not JSON: " + e.what());
    }
  }
  return out;
}

ProcessResult process_from(const json& j) {
  ProcessResult p;
  if (j.is_null()) return p;
  p.exit_code = j.at("exit_code").get<int>();
  p.signal = j.at("signal").get<int>();
  p.timed_out = j.at("timed_out").get<bool>();
  p.seconds = j.at("seconds").get<double>();
  return p;
}

GateVerdict verdict_from(const std::string& name) {
  for (GateVerdict v : {GateVerdict::Passed, GateVerdict::Failed, GateVerdict::Skipped, GateVerdict::Timeout,
                        GateVerdict::Crashed})
    if (name == verdict_name(v)) return v;
  throw std::runtime_error("unknown gate verdict \"" + name + "\"");
}

Outcome outcome_from(const std::string& name) {
  for (Outcome o : {Outcome::Killed, Outcome::Survived, Outcome::Unviable, Outcome::Timeout, Outcome::Crashed,
                    Outcome::Equivalent, Outcome::InfraError})
    if (name == outcome_name(o)) return o;
  throw std::runtime_error("unknown outcome \"" + name + "\"");
}

std::vector<GateResult> gates_from(const json& a) {
  std::vector<GateResult> out;
  for (const auto& j : a) {
    GateResult g;
    g.gate = j.at("gate").get<std::string>();
    g.verdict = verdict_from(j.at("verdict").get<std::string>());
    g.process = process_from(j.at("process"));
    g.timeout_s = j.at("timeout_s").get<double>();
    g.tests_run = j.at("tests_run").get<int>();
    g.failing_cases = j.at("failing_cases").get<std::vector<std::string>>();
    g.failed_assertions = j.at("failed_assertions").get<int>();
    out.push_back(std::move(g));
  }
  return out;
}

Provenance provenance_from(const json& j) {
  Provenance p;
  for (auto [key, field] : {std::pair{"revision", &p.revision}, {"date", &p.date}, {"machine", &p.machine},
                            {"cxx", &p.cxx}, {"nvcc", &p.nvcc}, {"cmake", &p.cmake}, {"ninja", &p.ninja},
                            {"compiler_cache", &p.compiler_cache},
                            {"command", &p.command}, {"catalogue", &p.catalogue}, {"label", &p.label}})
    *field = j.value(key, "");
  p.cuda = j.value("cuda", false);
  return p;
}

InDiff in_diff_from(const json& j) {
  auto entries = [](const json& a) {
    std::vector<InDiffEntry> out;
    for (const auto& e : a) out.push_back({e.at("id").get<std::string>(), e.at("why").get<std::string>()});
    return out;
  };
  return {j.at("base").get<std::string>(), j.at("merge_base").get<std::string>(),
          j.at("changed").get<std::vector<std::string>>(), entries(j.at("chosen")), entries(j.at("skipped")),
          j.value("gate_sources", std::map<std::string, std::vector<std::string>>{})};
}

Mutation mutation_from(const json& j) {
  Mutation m;
  m.id = j.at("id").get<std::string>();
  m.component = j.value("component", "");
  m.file = j.at("file").get<std::string>();
  m.original = j.at("original").get<std::string>();
  m.replacement = j.at("replacement").get<std::string>();
  m.gates = j.at("gates").get<std::vector<std::string>>();
  m.expected = j.at("expected").get<std::string>() == "survived" ? Expected::Survived : Expected::Killed;
  m.reason = j.value("reason", "");
  m.description = j.value("description", "");
  m.position = j.at("index").get<size_t>();
  return m;
}

void read_outcome(const json& j, MutationResult& r) {
  r.outcome = outcome_from(j.at("outcome").get<std::string>());
  r.as_expected = j.at("as_expected").get<bool>();
  r.detail = j.value("detail", "");
  r.diff_stat = j.value("diff_stat", "");
  if (j.contains("diff_lines"))
    r.diff_lines = {j.at("diff_lines").at("added").get<int>(), j.at("diff_lines").at("deleted").get<int>()};
  r.build = process_from(j.at("build"));
  r.built = !j.at("build").is_null() && r.build.ok();
  r.objects_rebuilt = j.at("objects_rebuilt").get<std::vector<std::string>>();
  r.hashes = j.at("binary_sha256").get<std::map<std::string, std::string>>();
  r.gates = gates_from(j.at("gates"));
  r.seconds = j.at("seconds").get<double>();
}

VerifyResult verify_from(const json& j) {
  VerifyResult v;
  v.shard = j.value("shard", "");
  v.after = j.at("after").get<size_t>();
  v.tree_clean = j.at("tree_clean").get<bool>();
  v.build_ok = j.at("build_ok").get<bool>();
  v.hashes_match = j.at("hashes_match").get<bool>();
  v.gates_run = j.value("gates_run", true);  // reports before the field reran the gates at every check
  v.gates_green = j.at("gates_green").get<bool>();
  v.hashes = j.at("binary_sha256").get<std::map<std::string, std::string>>();
  v.gates = gates_from(j.at("gates"));
  v.detail = j.value("detail", "");
  v.seconds = j.at("seconds").get<double>();
  return v;
}

ReadReport read(const std::string& dir) {
  ReadReport report;
  RunRecord& run = report.run;
  const json meta = read_json(dir, "run.json");
  run.provenance = provenance_from(meta.at("provenance"));
  run.component = meta.value("component", "");
  run.shard = meta.value("shard", "");
  run.only = meta.value("only", "");
  if (!meta.at("in_diff").is_null()) run.in_diff = in_diff_from(meta.at("in_diff"));
  run.stopped = meta.value("stopped", "");
  run.void_run = meta.value("void_run", false);
  run.complete = meta.value("complete", false);
  run.seconds = meta.value("seconds", 0.0);

  const json stryker = read_json(dir, "mutation.json");
  for (const auto& [file, f] : stryker.at("files").items()) run.sources[file] = f.at("source").get<std::string>();

  std::map<std::string, json> outcomes;
  for (const auto& line : read_lines(dir, "outcomes.jsonl")) {
    const std::string phase = line.at("phase").get<std::string>();
    if (phase == "baseline") {
      report.has_baseline = true;
      run.baseline_hashes = line.at("binary_sha256").get<std::map<std::string, std::string>>();
      run.baseline_gates = gates_from(line.at("gates"));
    } else if (phase == "mutation") {
      outcomes[line.at("id").get<std::string>()] = line;
    } else if (phase == "verify") {
      run.verifications.push_back(verify_from(line));
    }
  }
  // The plan, in order; a planned mutation without an outcome line was never judged (the run stopped).
  for (const auto& planned : read_json(dir, "mutants.json")) {
    MutationResult r;
    r.mutation = mutation_from(planned);
    r.index = r.mutation.position;
    r.start.line = planned.at("line").get<int>();
    r.start.column = planned.at("column").get<int>();
    auto src = run.sources.find(r.mutation.file);
    if (src != run.sources.end()) {
      size_t at = src->second.find(r.mutation.original);
      if (at != std::string::npos) {
        r.start = position_of(src->second, at);
        r.end = position_of(src->second, at + r.mutation.original.size());
      }
    }
    report.planned.push_back(r);
    auto it = outcomes.find(r.mutation.id);
    if (it == outcomes.end()) continue;
    read_outcome(it->second, r);
    run.mutations.push_back(std::move(r));
  }
  return report;
}

}  // namespace

ReadReport read_report(const std::string& dir) {
  try {
    return read(dir);
  } catch (const ReportDirError&) {
    throw;
  } catch (const std::exception& e) {
    throw ReportDirError(dir + ": not a readable battery report: " + e.what());
  }
}

}  // namespace music3::battery
