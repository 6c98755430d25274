#include "mutations/runner/owed.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>

#include <nlohmann/json.hpp>

#include "engine/core/exit_code.h"
#include "mutations/runner/options.h"
#include "mutations/runner/report_read.h"
#include "mutations/runner/reports.h"
#include "mutations/runner/worktree.h"

namespace music3::battery {
namespace {

namespace fs = std::filesystem;

bool label_covers(const std::string& report_label, const std::string& mutation_label) {
  return report_label == "all" || report_label == mutation_label;
}

bool newer(const RecordedVerdict& a, const RecordedVerdict& b) {
  return a.date != b.date ? a.date > b.date : a.report > b.report;
}

// What of the catalogue entry differs from the judged one, besides the gate list ("" when nothing).
std::string text_change(const Mutation& now, const Mutation& then) {
  if (now.file != then.file) return "its file";
  if (now.original != then.original) return "its original text";
  if (now.replacement != then.replacement) return "its replacement";
  if (now.expected != then.expected) return "its expectation";
  return "";
}

// The recorded verdict judged again against the catalogue's gate list: as expected only when every listed gate
// has a recorded verdict and they meet the expectation.
bool meets_with_current_gates(const MutationResult& recorded, const Mutation& now, std::string& missing) {
  MutationResult r = recorded;
  r.mutation = now;
  r.gates.clear();
  r.detail.clear();
  for (const auto& g : now.gates) {
    auto it = std::find_if(recorded.gates.begin(), recorded.gates.end(),
                           [&](const GateResult& x) { return x.gate == g; });
    if (it == recorded.gates.end()) {
      missing = g;
      return false;
    }
    r.gates.push_back(*it);
  }
  judge_expectation(r);
  return r.as_expected;
}

std::string value_after(const std::vector<std::string>& args, size_t& i) {
  if (i + 1 >= args.size()) throw UsageError("owed: " + args[i] + " needs a value");
  return args[++i];
}

}  // namespace

ReportScan scan_reports(const std::string& root) {
  ReportScan scan;
  if (!fs::is_directory(root)) throw ReportDirError(root + ": no such report folder");
  std::vector<std::string> dirs;
  for (const auto& e : fs::recursive_directory_iterator(root))
    if (e.is_regular_file() && (e.path().filename() == "run.json" || e.path().filename() == "outcomes.jsonl"))
      dirs.push_back(e.path().parent_path().string());
  std::sort(dirs.begin(), dirs.end());
  dirs.erase(std::unique(dirs.begin(), dirs.end()), dirs.end());
  for (const auto& dir : dirs) {
    try {
      ReadReport r = read_report(dir);
      ++scan.reports_read;
      for (auto& m : r.run.mutations)
        scan.verdicts.push_back({dir, r.run.provenance.date, r.run.provenance.label, std::move(m)});
    } catch (const ReportDirError& e) {
      scan.unreadable.push_back(e.what());
    }
  }
  return scan;
}

OwedSummary owed_mutations(const Catalogue& c, const std::vector<RecordedVerdict>& verdicts, const std::string& label) {
  std::map<std::string, const RecordedVerdict*> newest;
  for (const auto& m : c.mutations) {
    const std::string l = label_of(c, m);
    for (const auto& v : verdicts)
      if (v.result.mutation.id == m.id && label_covers(v.label, l)) {
        const RecordedVerdict*& n = newest[m.id];
        if (n == nullptr || newer(v, *n)) n = &v;
      }
  }
  OwedSummary s;
  for (const auto& m : c.mutations) {
    const std::string l = label_of(c, m);
    if (!label.empty() && l != label) continue;
    ++s.catalogued;
    auto it = newest.find(m.id);
    if (it == newest.end()) {
      s.owed.push_back({m.id, l, "no verdict in a readable report", ""});
      continue;
    }
    const RecordedVerdict& v = *it->second;
    const MutationResult& r = v.result;
    const std::string changed = text_change(m, r.mutation);
    std::string missing;
    if (!changed.empty())
      s.owed.push_back({m.id, l, changed + " changed since", v.report});
    else if (!r.as_expected && r.mutation.gates == m.gates)
      s.owed.push_back({m.id, l, std::string("missed its expectation (") + outcome_name(r.outcome) + ")", v.report});
    else if (!meets_with_current_gates(r, m, missing))
      s.owed.push_back({m.id, l,
                        missing.empty() ? "its gate list changed since, and the recorded gates miss it"
                                        : "its gate list changed since: " + missing + " was not run",
                        v.report});
  }
  for (auto& o : s.owed)
    for (const auto& m : c.mutations)
      if (m.id == o.id)
        for (const auto& step : c.setup)
          if (step.needed_by(m.gates) &&
              std::find(o.setups.begin(), o.setups.end(), step.component) == o.setups.end())
            o.setups.push_back(step.component);
  return s;
}

namespace {

// The owed ids grouped by the set-ups they need ("none" when none), each group as one --only list.
std::map<std::string, std::string> ids_by_setup(const OwedSummary& s) {
  std::map<std::string, std::string> groups;
  for (const auto& o : s.owed) {
    std::string key;
    for (const auto& c : o.setups) key += (key.empty() ? "" : "+") + c;
    std::string& ids = groups[key.empty() ? "none" : key];
    ids += (ids.empty() ? "" : ",") + o.id;
  }
  return groups;
}

}  // namespace

int run_owed(const std::vector<std::string>& args) {
  std::string repo_arg = ".", catalogue, reports, label;
  bool as_json = false;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& a = args[i];
    if (a == "--help" || a == "-h") {
      std::fputs(kUsage, stdout);
      return exit_code::kOk;
    }
    if (a == "--repo") repo_arg = value_after(args, i);
    else if (a == "--catalogue") catalogue = value_after(args, i);
    else if (a == "--reports") reports = value_after(args, i);
    else if (a == "--label") {
      label = value_after(args, i);
      if (label != "cpu" && label != "gpu") throw UsageError("owed: --label wants cpu or gpu, got \"" + label + "\"");
    } else if (a == "--json") as_json = true;
    else throw UsageError("owed: unknown argument \"" + a + "\"");
  }
  if (!fs::is_directory(repo_arg)) throw UsageError("owed: --repo " + repo_arg + " is not a folder");
  const std::string repo = repo_toplevel(repo_arg);
  if (catalogue.empty()) catalogue = repo + "/mutations/catalogue";
  if (reports.empty()) reports = repo + "/reports/mutations";
  const Catalogue c = load_catalogue(catalogue, repo);
  const ReportScan scan = scan_reports(reports);
  OwedSummary s = owed_mutations(c, scan.verdicts, label);
  for (auto& o : s.owed)  // shown from the repository root
    if (!o.last_report.empty()) o.last_report = fs::path(o.last_report).lexically_relative(repo).string();
  std::string ids;
  for (const auto& o : s.owed) {
    if (!ids.empty()) ids += ',';
    ids += o.id;
  }
  if (as_json) {
    nlohmann::json j = {{"label", label.empty() ? "all" : label},
                        {"catalogued", s.catalogued},
                        {"current", s.catalogued - s.owed.size()},
                        {"reports_read", scan.reports_read},
                        {"unreadable", scan.unreadable},
                        {"owed", nlohmann::json::array()},
                        {"ids", ids},
                        {"ids_by_setup", ids_by_setup(s)}};
    for (const auto& o : s.owed)
      j["owed"].push_back({{"id", o.id},
                           {"label", o.label},
                           {"reason", o.reason},
                           {"last_report", o.last_report},
                           {"setups", o.setups}});
    std::printf("%s\n", j.dump(1).c_str());
  } else {
    std::printf("mutation-battery owed: %s: %zu catalogued, %zu current, %zu owed (%zu reports read under %s, %zu "
                "not readable)\n",
                label.empty() ? "all labels" : label.c_str(), s.catalogued, s.catalogued - s.owed.size(),
                s.owed.size(), scan.reports_read, reports.c_str(), scan.unreadable.size());
    for (const auto& o : s.owed)
      std::printf("  %-56s %-4s %s%s%s\n", o.id.c_str(), o.label.c_str(), o.reason.c_str(),
                  o.last_report.empty() ? "" : " ", o.last_report.empty() ? "" : o.last_report.c_str());
    if (!ids.empty()) std::printf("ids: %s\n", ids.c_str());
    for (const auto& [setup, group] : ids_by_setup(s))
      std::printf("ids (set-up %s): %s\n", setup.c_str(), group.c_str());
  }
  return s.owed.empty() ? exit_code::kOk : exit_code::kFoundProblems;
}

}  // namespace music3::battery
