#include "mutations/runner/battery.h"

#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <set>

#include "mutations/runner/build.h"
#include "mutations/runner/gate_run.h"
#include "mutations/runner/log_cap.h"
#include "mutations/runner/in_diff.h"
#include "mutations/runner/outcome.h"
#include "mutations/runner/patch.h"
#include "mutations/runner/provenance.h"
#include "mutations/runner/reports.h"
#include "mutations/runner/worktree.h"
#include "tools/provenance.h"

namespace music3::battery {
namespace {

using Clock = std::chrono::steady_clock;
double since(Clock::time_point t0) { return std::chrono::duration<double>(Clock::now() - t0).count(); }

// A gate's baseline run is bounded only so that a hung gate cannot hang the battery.
constexpr double kBaselineGateLimitS = 3600;
// A verification runs the unmutated tree, so a gate that times out there was slowed (a loaded machine), not broken:
// it gets one more run with this many times the limit before the run is declared void. Mutated trees get no retry
// (a timeout is their outcome, never a kill).
constexpr double kVerifyRetryFactor = 4.0;

void progress(const std::string& line) { std::fprintf(stderr, "mutation-battery: %s\n", line.c_str()); }

// The worktree's build folder, as every build of a run configures it (the baseline's and the in-diff probe's).
BuildDir worktree_build(const Worktree& wt, bool cuda, const BatteryOptions& o) {
  return BuildDir{wt.source(), wt.root() + "/build", cuda, o.jobs, oracle_python(o.repo), find_compiler_cache(),
                  wt.root()};
}

void note(const std::string& log, const std::string& text) {
  std::ofstream out(log, std::ios::app);
  out << "\n### " << text << "\n";
}

class Battery {
 public:
  Battery(const BatteryOptions& o, const Catalogue& c, std::vector<Mutation> selected, const Worktree& wt,
          const Reports& reports, RunRecord record);
  int run();

 private:
  void baseline();  // throws std::runtime_error: a baseline failure
  void test_mutation(MutationResult& r);
  void check_diff(MutationResult& r, const Patch& patch);
  VerifyResult verify(size_t after, bool with_gates);
  std::vector<GateResult> run_gates(const std::vector<std::string>& ids, const std::string& log,
                                    const std::string& tag, double limit_factor = 1.0);
  std::vector<std::string> executables_of(const std::vector<std::string>& gate_ids) const;
  std::string void_if_failed(const VerifyResult& v);
  void save();

  const BatteryOptions& o_;
  const Catalogue& c_;
  const Reports& reports_;
  std::string revision_, json_dir_;
  BuildDir build_;
  std::vector<MutationResult> planned_;
  std::vector<std::string> gate_ids_, executables_, targets_;
  std::map<std::string, double> baseline_seconds_;
  RunRecord record_;
  Clock::time_point t0_ = Clock::now();
};

Battery::Battery(const BatteryOptions& o, const Catalogue& c, std::vector<Mutation> selected, const Worktree& wt,
                 const Reports& reports, RunRecord record)
    : o_(o),
      c_(c),
      reports_(reports),
      revision_(record.provenance.revision),
      json_dir_(wt.root() + "/gtest-json"),
      record_(std::move(record)) {
  std::set<std::string> gates;
  bool cuda = false;
  for (size_t i = 0; i < selected.size(); ++i) {
    MutationResult r;
    r.index = selected[i].position;
    r.mutation = selected[i];
    std::string text = read_file_bytes(wt.source() + "/" + r.mutation.file);
    size_t at = text.find(r.mutation.original);
    if (at != std::string::npos) {
      r.start = position_of(text, at);
      r.end = position_of(text, at + r.mutation.original.size());
    }
    record_.sources[r.mutation.file] = text;
    planned_.push_back(r);
    for (const auto& g : r.mutation.gates) {
      gates.insert(g);
      cuda = cuda || c.gates.at(g).has_label("gpu");
    }
  }
  gate_ids_.assign(gates.begin(), gates.end());
  executables_ = executables_of(gate_ids_);
  targets_ = executables_;
  for (const auto& s : c.setup)
    if (s.needed_by(gate_ids_)) targets_.insert(targets_.end(), s.targets.begin(), s.targets.end());
  build_ = worktree_build(wt, cuda, o);
  std::filesystem::create_directories(json_dir_);
}

std::vector<std::string> Battery::executables_of(const std::vector<std::string>& gate_ids) const {
  std::set<std::string> exes;
  for (const auto& g : gate_ids) exes.insert(c_.gates.at(g).executable);
  return {exes.begin(), exes.end()};
}

void Battery::save() {
  record_.seconds = since(t0_);
  reports_.write_final(record_);
}

std::vector<GateResult> Battery::run_gates(const std::vector<std::string>& ids, const std::string& log,
                                           const std::string& tag, double limit_factor) {
  std::vector<GateResult> out;
  for (const auto& id : ids) {
    double timeout = limit_factor * std::max(o_.min_gate_timeout_s, 5.0 * baseline_seconds_.at(id));
    out.push_back(run_gate(c_.gates.at(id), build_, timeout, json_dir_ + "/" + tag + "-" + id + ".json", log));
  }
  return out;
}

void Battery::baseline() {
  std::string log = reports_.log_path("baseline");
  std::filesystem::remove(log);
  progress("baseline: configure " + build_.dir + (build_.cuda ? " (CUDA)" : " (CPU only)"));
  configure(build_, log);
  Provenance& p = record_.provenance;
  p = collect_provenance(build_, revision_);
  p.command = o_.command;
  p.catalogue = o_.catalogue;
  p.label = o_.selection.label.empty() ? "all" : o_.selection.label;
  progress("baseline: build " + std::to_string(targets_.size()) + " targets");
  ProcessResult b = build_targets(build_, targets_, log);
  if (!b.ok()) throw std::runtime_error("baseline build failed (" + b.describe() + "), see " + log);
  for (const auto& s : c_.setup) {
    if (!s.needed_by(gate_ids_)) continue;
    progress("baseline: setup: " + s.command);
    note(log, "setup: " + s.command);
    ProcessResult r = run_process({{"/bin/sh", "-c", s.command},
                                   build_.dir,
                                   {{"MUSIC3_SOURCE_DIR", build_.source}, {"MUSIC3_BUILD_DIR", build_.dir}},
                                   log,
                                   0});
    if (!r.ok()) throw std::runtime_error("setup command failed (" + r.describe() + "): " + s.command);
  }
  for (const auto& id : gate_ids_) {
    GateResult g = run_gate(c_.gates.at(id), build_, kBaselineGateLimitS, json_dir_ + "/baseline-" + id + ".json", log);
    record_.baseline_gates.push_back(g);
    progress("baseline: gate " + id + ": " + verdict_name(g.verdict) + ", " + std::to_string(g.tests_run) + " tests");
    if (g.verdict != GateVerdict::Passed) throw std::runtime_error("baseline gate " + id + " is not green: " + verdict_name(g.verdict) + " (" + g.process.describe() + ")");
    if (g.tests_run == 0) throw std::runtime_error("baseline gate " + id + " ran no tests");
    baseline_seconds_[id] = g.process.seconds;
  }
  // No clean rebuild: every verification rebuilds the restored tree and requires these hashes, which proves the
  // build reproduces them (a clean rebuild cost a third of the baseline on 2 cores).
  record_.baseline_hashes = hash_executables(build_, executables_);
  nlohmann::json gates = nlohmann::json::array();
  for (const auto& g : record_.baseline_gates) gates.push_back(to_json(g));
  reports_.append_outcome({{"phase", "baseline"}, {"binary_sha256", record_.baseline_hashes}, {"gates", gates}});
  cap_log(log);
}

void Battery::check_diff(MutationResult& r, const Patch& patch) {
  const std::string& wt = build_.source;
  std::vector<std::string> git{"git", "-C", wt, "-c", "color.ui=never", "diff", "--no-ext-diff"};
  auto git_diff = [&](const char* flag) {
    auto argv = git;
    if (*flag) argv.push_back(flag);
    return capture_ok(argv, "");
  };
  reports_.write_diff(r.mutation.id, git_diff(""));
  r.diff_stat = git_diff("--stat");
  LineChange want = expected_line_change(patch.original_text(), patch.mutated_text());
  std::string want_line =
      std::to_string(want.added) + "\t" + std::to_string(want.deleted) + "\t" + r.mutation.file + "\n";
  std::string numstat = git_diff("--numstat");
  if (numstat != want_line)
    throw std::runtime_error("git diff --numstat shows \"" + numstat + "\" but the mutation must change exactly \"" +
                             want_line + "\"");
  r.diff_lines = want;
}

void Battery::test_mutation(MutationResult& r) {
  const Mutation& m = r.mutation;
  std::string log = reports_.log_path(m.id);
  std::filesystem::remove(log);
  auto t0 = Clock::now();
  note(log, "mutation " + m.id + " in " + m.file + ":" + std::to_string(r.start.line) + "\n--- original\n" + m.original +
                "\n+++ replacement\n" + m.replacement);
  std::string file = build_.source + "/" + m.file;
  try {
    // Only this mutation's gates are rebuilt (a header mutation would otherwise rebuild
    // every target); the verification builds bring every target back to the baseline.
    const std::vector<std::string> targets = executables_of(m.gates);
    std::set<std::string> inputs;
    for (auto& i : target_inputs(build_, targets)) inputs.insert(std::move(i));
    std::vector<std::string> objects;
    for (auto& o : objects_depending_on(build_, file))
      if (inputs.count(o)) objects.push_back(std::move(o));
    // A file that a gate executes at run time (a script) changes no object: the gate run is the proof.
    bool interpreted = objects.empty();
    for (const auto& g : m.gates) interpreted = interpreted && c_.gates.at(g).runs_file(m.file);
    if (objects.empty() && !interpreted)
      throw std::runtime_error("no object of the mutation's gates depends on " + m.file);
    if (interpreted) note(log, "interpreted: every gate runs " + m.file + " at run time; no object to rebuild");
    auto before = mtimes_ns(objects);
    Patch patch = Patch::apply(file, m.original, m.replacement);
    check_diff(r, patch);
    note(log, "build " + std::to_string(targets.size()) + " gate targets");
    r.build = build_targets(build_, targets, log);
    r.built = r.build.ok();
    if (!r.built) {
      r.outcome = Outcome::Unviable;
    } else {
      auto after = mtimes_ns(objects);
      for (const auto& o : objects)
        if (after.at(o) <= before.at(o)) throw std::runtime_error("the mutant build did not rebuild " + o);
      r.objects_rebuilt = objects;
      r.hashes = hash_executables(build_, executables_of(m.gates));
      bool identical = !interpreted;
      for (const auto& [exe, h] : r.hashes) identical = identical && record_.baseline_hashes.at(exe) == h;
      if (identical) {
        r.outcome = Outcome::Equivalent;
      } else {
        r.gates = run_gates(m.gates, log, m.id);
        r.outcome = classify(r.gates);
        if (r.outcome == Outcome::InfraError) r.detail = "a gate skipped itself (exit 77) on the mutant";
      }
    }
    patch.restore();
  } catch (const Interrupted&) {
    throw;
  } catch (const std::exception& e) {
    r.outcome = Outcome::InfraError;
    r.detail = e.what();
  }
  r.seconds = since(t0);
  judge_expectation(r);
  note(log, std::string("outcome: ") + outcome_name(r.outcome) + (r.as_expected ? " (as expected)" : " (UNEXPECTED)") +
                (r.detail.empty() ? "" : ": " + r.detail));
  cap_log(log);
}

// A check between mutations proves the restore: the worktree at HEAD and every gate executable rebuilt to its
// baseline sha256, so the next mutation starts from the baseline's binaries. Rerunning the gates there would add
// nothing those hashes do not prove but a fixture a gate corrupted; such a corruption persists, so the final check,
// which reruns every gate, still voids the run. Rerunning them every 10 mutations took 65 % of a CPU battery.
VerifyResult Battery::verify(size_t after, bool with_gates) {
  VerifyResult v;
  v.after = after;
  v.gates_run = with_gates;
  auto t0 = Clock::now();
  std::string log = reports_.log_path("verify-" + std::to_string(after));
  std::filesystem::remove(log);
  auto add = [&](const std::string& why) { v.detail += (v.detail.empty() ? "" : "; ") + why; };
  try {
    auto dirty = dirty_tracked_files(build_.source);
    v.tree_clean = dirty.empty();
    if (!v.tree_clean) add("the worktree is not back at HEAD: " + dirty.front());
    ProcessResult b = build_targets(build_, targets_, log);
    v.build_ok = b.ok();
    if (!v.build_ok) throw std::runtime_error("rebuild failed (" + b.describe() + ")");
    v.hashes = hash_executables(build_, executables_);
    v.hashes_match = v.hashes == record_.baseline_hashes;
    for (const auto& [exe, h] : v.hashes)
      if (record_.baseline_hashes.at(exe) != h) add(exe + " hashes " + h + ", not the baseline's");
    if (with_gates) {
      v.gates = run_gates(gate_ids_, log, "verify-" + std::to_string(after));
      for (auto& g : v.gates)
        if (g.verdict == GateVerdict::Timeout) {
          note(log, "gate " + g.gate + " timed out at " + std::to_string(g.timeout_s) +
                        " s on the unmutated tree: once more with " + std::to_string(kVerifyRetryFactor) +
                        "x the limit");
          g = run_gates({g.gate}, log, "verify-" + std::to_string(after) + "-retry", kVerifyRetryFactor).front();
        }
      v.gates_green = true;
      for (const auto& g : v.gates)
        if (g.verdict != GateVerdict::Passed) {
          v.gates_green = false;
          add("gate " + g.gate + " " + verdict_name(g.verdict));
        }
    }
  } catch (const Interrupted&) {
    throw;
  } catch (const std::exception& e) {
    add(e.what());
  }
  v.seconds = since(t0);
  cap_log(log);
  return v;
}

std::string Battery::void_if_failed(const VerifyResult& v) {
  record_.verifications.push_back(v);
  reports_.append_outcome(to_json(v));
  progress("verify after " + std::to_string(v.after) + " mutations: " +
           (!v.ok() ? "FAILED: " + v.detail : v.gates_run ? "baseline reproduced, gates green" : "baseline hashes reproduced"));
  if (v.ok()) return "";
  record_.void_run = true;
  record_.stopped = "verification after " + std::to_string(v.after) + " mutations failed: " + v.detail;
  return record_.stopped;
}

int Battery::run() {
  reports_.write_mutants(planned_);
  try {
    try {
      baseline();
    } catch (const Interrupted&) {
      throw;
    } catch (const std::exception& e) {
      record_.stopped = std::string("baseline failure: ") + e.what();
      progress(record_.stopped);
      save();
      return kExitBaselineFailure;
    }
    save();
    bool unexpected = false;
    for (size_t i = 0; i < planned_.size(); ++i) {
      MutationResult r = planned_[i];
      progress("[" + std::to_string(i + 1) + "/" + std::to_string(planned_.size()) + "] " + r.mutation.id + " ...");
      test_mutation(r);
      record_.mutations.push_back(r);
      reports_.append_outcome(to_json(r));
      unexpected = unexpected || !r.as_expected;
      progress("[" + std::to_string(i + 1) + "/" + std::to_string(planned_.size()) + "] " + r.mutation.id + ": " +
               outcome_name(r.outcome) + (r.as_expected ? " (as expected)" : " (UNEXPECTED" + (r.detail.empty() ? "" : ": " + r.detail) + ")"));
      save();
      auto dirty = dirty_tracked_files(build_.source);
      if (!dirty.empty()) {
        record_.void_run = true;
        record_.stopped = "the restore of " + r.mutation.id + " left the worktree changed: " + dirty.front();
        progress(record_.stopped);
        save();
        return kExitVoid;
      }
      bool last = i + 1 == planned_.size();
      if (!last && o_.verify_every > 0 && (i + 1) % static_cast<size_t>(o_.verify_every) == 0 &&
          !void_if_failed(verify(i + 1, false)).empty()) {
        save();
        return kExitVoid;
      }
    }
    if (!void_if_failed(verify(planned_.size(), true)).empty()) {
      save();
      return kExitVoid;
    }
    record_.complete = true;
    save();
    progress(std::string("done: ") + (unexpected ? "UNEXPECTED outcomes" : "every mutation as expected") +
             ", report in " + reports_.dir());
    return unexpected ? kExitUnexpected : kExitAsExpected;
  } catch (const Interrupted& e) {
    record_.stopped = e.what();
    save();
    throw;
  }
}

std::string default_out_dir(const BatteryOptions& o, const std::string& revision) {
  std::string name = tools::utc_date() + "-" + revision.substr(0, 12) + "-" +
                     (o.selection.label.empty() ? "all" : o.selection.label);
  if (!o.selection.in_diff_base.empty()) name += "-in-diff";
  if (o.selection.shard) name += "-shard" + std::to_string(o.selection.shard->k) + "of" + std::to_string(o.selection.shard->n);
  if (const auto only = only_ids(o.selection.only); only.size() == 1)
    name += "-only-" + *only.begin();
  else if (only.size() > 1)
    name += "-only-" + std::to_string(only.size()) + "-mutations";
  return o.repo + "/reports/mutations/" + (o.selection.component.empty() ? "all" : o.selection.component) + "/" + name;
}

// The --in-diff choice over the component's mutations of every label (so that the report can name the
// chosen mutations another label runs), with the gates' sources from a configure of the worktree. The
// configure is the one the baseline then reuses.
InDiff choose(const BatteryOptions& o, const Catalogue& c, const Worktree& wt, const Reports& reports) {
  InDiff d;
  d.base = o.selection.in_diff_base;
  d.merge_base = merge_base_of(o.repo, d.base);
  d.changed = changed_files(o.repo, d.merge_base);
  Selection every_label = o.selection;
  every_label.label.clear();
  every_label.shard.reset();
  every_label.only.clear();
  std::vector<Mutation> candidates = select_mutations(c, every_label);
  std::map<std::string, std::vector<std::string>>& sources = d.gate_sources;
  if (!d.changed.empty()) {
    std::set<std::string> gates;
    bool cuda = false;
    for (const auto& m : candidates)
      if (o.selection.label.empty() || label_of(c, m) == o.selection.label)
        for (const auto& g : m.gates) cuda = cuda || c.gates.at(g).has_label("gpu");
    for (const auto& m : candidates) gates.insert(m.gates.begin(), m.gates.end());
    const BuildDir probe = worktree_build(wt, cuda, o);
    progress("in-diff: " + std::to_string(d.changed.size()) + " files changed since " + d.merge_base.substr(0, 12) +
             "; configure " + probe.dir + " to find the gates' sources");
    configure(probe, reports.log_path("in-diff"));
    sources = gate_sources(c, probe, gates);
  }
  choose_in_diff(candidates, sources, changed_entries(o.catalogue, o.repo, d.merge_base, d.changed), d);
  progress("in-diff: " + std::to_string(d.chosen.size()) + " chosen, " + std::to_string(d.skipped.size()) +
           " skipped (listed in the report)");
  return d;
}

}  // namespace

int run_battery(const BatteryOptions& o) {
  auto dirty = dirty_tracked_files(o.repo);
  if (!dirty.empty()) {
    progress("refusing to run: tracked files of " + o.repo + " differ from HEAD (commit or stash them):");
    for (const auto& d : dirty) std::fprintf(stderr, "  %s\n", d.c_str());
    return kExitDirtyTree;
  }
  Catalogue c = load_catalogue(o.catalogue, o.repo);
  Selection selection = o.selection;
  select_mutations(c, selection);  // refuses an unknown --component or --only before anything is made
  RunRecord record;
  Provenance& p = record.provenance;
  p.revision = head_revision(o.repo);
  p.command = o.command;
  p.catalogue = o.catalogue;
  p.label = o.selection.label.empty() ? "all" : o.selection.label;
  p.date = tools::utc_now_iso8601();
  record.component = o.selection.component;
  record.only = o.selection.only;
  if (o.selection.shard) record.shard = std::to_string(o.selection.shard->k) + "/" + std::to_string(o.selection.shard->n);
  Reports reports(o.out.empty() ? default_out_dir(o, p.revision) : o.out);
  Worktree wt(o.repo);
  if (o.keep_worktree) wt.keep();
  if (!selection.in_diff_base.empty()) {
    record.in_diff = choose(o, c, wt, reports);
    selection.ids.emplace();
    for (const auto& e : record.in_diff->chosen) selection.ids->insert(e.id);
  }
  std::vector<Mutation> selected = select_mutations(c, selection);
  if (selected.empty()) {
    progress("no mutation selected; report in " + reports.dir());
    record.complete = true;
    reports.write_mutants({});
    reports.write_final(record);
    return kExitAsExpected;
  }
  progress("worktree " + wt.source() + ", report in " + reports.dir() + ", " + std::to_string(selected.size()) +
           " mutations");
  Battery battery(o, c, std::move(selected), wt, reports, std::move(record));
  return battery.run();
}

}  // namespace music3::battery
