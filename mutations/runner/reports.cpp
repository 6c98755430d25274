#include "mutations/runner/reports.h"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <stdexcept>

namespace music3::battery {
namespace {

using nlohmann::json;

void write_text(const std::string& path, const std::string& text) {
  std::string tmp = path + ".tmp";
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    out << text;
    if (!out) throw std::runtime_error("cannot write " + tmp);
  }
  std::filesystem::rename(tmp, path);  // a reader never sees half a report
}

json position_json(const TextPosition& p) { return {{"line", p.line}, {"column", p.column}}; }

json process_json(const ProcessResult& p) {
  return {{"exit_code", p.exit_code}, {"signal", p.signal}, {"timed_out", p.timed_out}, {"seconds", p.seconds},
          {"status", p.describe()}};
}

std::string cell(std::string s) {
  std::string out;
  for (char c : s) {
    if (c == '|') out += "\\|";
    else if (c == '\n') out += ' ';
    else out += c;
  }
  return out;
}

std::string fixed(double v, int digits) {
  char buf[64];
  std::snprintf(buf, sizeof buf, "%.*f", digits, v);
  return buf;
}

std::string short_hash(const std::string& h) { return h.substr(0, 12); }

std::string gate_cell(const GateResult& g) {
  std::string s = g.gate + ": " + verdict_name(g.verdict);
  if (g.verdict == GateVerdict::Failed)
    s += " (" + std::to_string(g.failing_cases.size()) + " cases / " + std::to_string(g.failed_assertions) +
         " assertions)";
  if (g.verdict == GateVerdict::Crashed || g.verdict == GateVerdict::Timeout) s += " (" + g.process.describe() + ")";
  return s;
}

std::string cases_cell(const MutationResult& r) {
  if (r.gates.empty()) return "–";
  size_t cases = 0;
  int assertions = 0;
  for (const auto& g : r.gates) {
    cases += g.failing_cases.size();
    assertions += g.failed_assertions;
  }
  return std::to_string(cases) + " / " + std::to_string(assertions);
}

void append_counts(std::ostringstream& md, const RunRecord& run) {
  std::map<Outcome, int> n;
  int unexpected = 0;
  for (const auto& r : run.mutations) {
    ++n[r.outcome];
    if (!r.as_expected) ++unexpected;
  }
  int killed = n[Outcome::Killed], survived = n[Outcome::Survived];
  md << "- Mutations judged: " << run.mutations.size() << "; **" << unexpected << " unexpected**\n";
  md << "- Score: killed / (killed + survived) = " << killed << " / " << (killed + survived);
  if (killed + survived) md << " = " << fixed(100.0 * killed / (killed + survived), 1) << " %";
  md << "\n- Beside the score: unviable " << n[Outcome::Unviable] << ", timeout " << n[Outcome::Timeout]
     << ", crashed " << n[Outcome::Crashed] << ", equivalent " << n[Outcome::Equivalent] << ", infra_error "
     << n[Outcome::InfraError] << "\n";
}

void append_table(std::ostringstream& md, const RunRecord& run) {
  md << "| # | mutation | file:line | expected | result | as expected | failing cases / assertions | gates | "
        "compiler | diff | binary sha256 | time |\n"
     << "|---|---|---|---|---|---|---|---|---|---|---|---|\n";
  for (const auto& r : run.mutations) {
    const Mutation& m = r.mutation;
    std::string gates, hashes;
    for (const auto& g : r.gates) gates += (gates.empty() ? "" : "<br>") + gate_cell(g);
    for (const auto& [exe, h] : r.hashes) hashes += (hashes.empty() ? "" : "<br>") + exe + " `" + short_hash(h) + "`";
    std::string diff = "–";
    if (!r.diff_stat.empty()) {
      diff = "+";
      diff += std::to_string(r.diff_lines.added);
      diff += " −";
      diff += std::to_string(r.diff_lines.deleted);
    }
    md << "| " << r.index << " | `" << m.id << "` " << cell(m.description) << " | " << m.file << ":" << r.start.line
       << " | " << expected_name(m.expected) << " | **" << outcome_name(r.outcome) << "** | "
       << (r.as_expected ? "yes" : "**NO**") << " | " << cases_cell(r) << " | " << cell(gates) << " | "
       << (r.built || r.outcome == Outcome::Unviable ? r.build.describe() : "–") << " | " << cell(diff) << " | "
       << (hashes.empty() ? "–" : hashes) << " | " << fixed(r.seconds, 1) << " s |\n";
  }
}

void append_notes(std::ostringstream& md, const RunRecord& run) {
  bool header = false;
  for (const auto& r : run.mutations) {
    if (r.mutation.expected == Expected::Survived) {
      if (!header) md << "\n## Expected survivors (known residuals)\n\n";
      header = true;
      md << "- `" << r.mutation.id << "`: " << r.mutation.reason << "\n";
    }
  }
  header = false;
  for (const auto& r : run.mutations) {
    if (r.detail.empty()) continue;
    if (!header) md << "\n## Details\n\n";
    header = true;
    md << "- `" << r.mutation.id << "`: " << r.detail << "\n";
  }
}

void append_hashes(std::ostringstream& md, const RunRecord& run) {
  md << "\n## Baseline and restore\n\n";
  md << "| executable | baseline sha256 | restored (last check) |\n|---|---|---|\n";
  for (const auto& [exe, h] : run.baseline_hashes) {
    auto same = [&](const std::map<std::string, std::string>& m) -> std::string {
      auto it = m.find(exe);
      if (it == m.end()) return "–";
      return it->second == h ? "identical" : "**DIFFERS** `" + it->second + "`";
    };
    // The last check that hashed this executable (in a merged report, its shard's last).
    const VerifyResult* last = nullptr;
    for (const auto& v : run.verifications)
      if (v.hashes.count(exe)) last = &v;
    md << "| " << exe << " | `" << h << "` | " << (last ? same(last->hashes) : "–") << " |\n";
  }
  md << "\nBaseline gates:\n\n";
  for (const auto& g : run.baseline_gates)
    md << "- " << g.gate << ": " << verdict_name(g.verdict) << ", " << g.tests_run << " tests in "
       << fixed(g.process.seconds, 2) << " s\n";
  md << "\nVerification builds:\n\n";
  for (const auto& v : run.verifications)
    md << "- " << (v.shard.empty() ? "" : "shard " + v.shard + ", ") << "after " << v.after << " mutations: " << (!v.ok()                 ? "**FAILED**: " + v.detail
                : v.gates_run ? "baseline hashes and green gates"
                              : "baseline hashes (gates rerun by the final check)")
       << " (" << fixed(v.seconds, 1) << " s)\n";
  if (run.verifications.empty()) md << "- none ran\n";
}

void append_in_diff(std::ostringstream& md, const RunRecord& run) {
  if (!run.in_diff) return;
  const InDiff& d = *run.in_diff;
  md << "\n## In-diff selection\n\n"
     << "Change: `" << d.base << "`...HEAD (merge base `" << d.merge_base << "`), " << d.changed.size()
     << " changed files. The rule: mutations/README.md, \"--in-diff\".\n\n";
  std::set<std::string> ran;
  for (const auto& r : run.mutations) ran.insert(r.mutation.id);
  md << "Chosen (" << d.chosen.size() << "):\n\n";
  for (const auto& e : d.chosen)
    md << "- `" << e.id << "`: " << e.why << (ran.count(e.id) ? "" : " (not in this run: another label or shard)")
       << "\n";
  if (d.chosen.empty()) md << "- none\n";
  md << "\nSkipped (" << d.skipped.size() << "):\n\n";
  for (const auto& e : d.skipped) md << "- `" << e.id << "`: " << e.why << "\n";
  if (d.skipped.empty()) md << "- none\n";
}

void append_shards(std::ostringstream& md, const RunRecord& run) {
  if (run.shards.empty()) return;
  md << "\n## Shards\n\n| shard | report | machine | ended | time |\n|---|---|---|---|---|\n";
  for (const auto& s : run.shards)
    md << "| " << s.shard << " | " << cell(s.dir) << " | " << cell(s.machine) << " | "
       << (s.void_run ? "**void**: " + cell(s.stopped) : s.complete ? std::string("complete") : "**stopped**: " + cell(s.stopped))
       << " | " << fixed(s.seconds, 1) << " s |\n";
}

void append_provenance(std::ostringstream& md, const Provenance& p, double seconds) {
  md << "\n## Provenance\n\n"
     << "- git revision: `" << p.revision << "`\n- date (UTC): " << p.date << "\n- machine: " << p.machine
     << "\n- C++ compiler: " << p.cxx << "\n- nvcc: " << p.nvcc << "\n- cmake: " << p.cmake << "\n- ninja: " << p.ninja
     << "\n- compiler cache: " << (p.compiler_cache.empty() ? "not recorded" : p.compiler_cache)
     << "\n- CUDA providers built: " << (p.cuda ? "yes" : "no") << "\n- label: " << p.label
     << "\n- catalogue: " << p.catalogue << "\n- command: `" << p.command << "`\n- run time: " << fixed(seconds, 1)
     << " s\n";
}

}  // namespace

json to_json(const GateResult& g) {
  return {{"gate", g.gate},
          {"verdict", verdict_name(g.verdict)},
          {"process", process_json(g.process)},
          {"timeout_s", g.timeout_s},
          {"tests_run", g.tests_run},
          {"failing_cases", g.failing_cases},
          {"failed_assertions", g.failed_assertions}};
}

json to_json(const MutationResult& r) {
  const Mutation& m = r.mutation;
  json gates = json::array();
  for (const auto& g : r.gates) gates.push_back(to_json(g));
  return {{"phase", "mutation"},
          {"index", r.index},
          {"component", m.component},
          {"id", m.id},
          {"file", m.file},
          {"line", r.start.line},
          {"expected", expected_name(m.expected)},
          {"outcome", outcome_name(r.outcome)},
          {"as_expected", r.as_expected},
          {"detail", r.detail},
          {"diff_stat", r.diff_stat},
          {"diff_lines", {{"added", r.diff_lines.added}, {"deleted", r.diff_lines.deleted}}},
          {"build", r.built || r.outcome == Outcome::Unviable ? process_json(r.build) : json(nullptr)},
          {"objects_rebuilt", r.objects_rebuilt},
          {"binary_sha256", r.hashes},
          {"gates", gates},
          {"seconds", r.seconds}};
}

json to_json(const VerifyResult& v) {
  json gates = json::array();
  for (const auto& g : v.gates) gates.push_back(to_json(g));
  json j = {{"phase", "verify"},     {"after", v.after},          {"ok", v.ok()},
          {"tree_clean", v.tree_clean}, {"build_ok", v.build_ok}, {"hashes_match", v.hashes_match}, {"gates_run", v.gates_run}, {"gates_green", v.gates_green},
          {"binary_sha256", v.hashes}, {"gates", gates},        {"detail", v.detail},
          {"seconds", v.seconds}};
  if (!v.shard.empty()) j["shard"] = v.shard;
  return j;
}

json to_json(const Provenance& p) {
  return {{"revision", p.revision}, {"date", p.date},   {"machine", p.machine}, {"cxx", p.cxx},
          {"nvcc", p.nvcc},         {"cmake", p.cmake}, {"ninja", p.ninja}, {"compiler_cache", p.compiler_cache},     {"command", p.command},
          {"catalogue", p.catalogue}, {"label", p.label}, {"cuda", p.cuda}};
}

json to_json(const InDiff& d) {
  auto entries = [](const std::vector<InDiffEntry>& list) {
    json a = json::array();
    for (const auto& e : list) a.push_back({{"id", e.id}, {"why", e.why}});
    return a;
  };
  return {{"base", d.base}, {"merge_base", d.merge_base}, {"changed", d.changed},
          {"chosen", entries(d.chosen)}, {"skipped", entries(d.skipped)}, {"gate_sources", d.gate_sources}};
}

json run_json(const RunRecord& run) {
  json shards = json::array();
  for (const auto& s : run.shards)
    shards.push_back({{"dir", s.dir}, {"shard", s.shard}, {"machine", s.machine}, {"stopped", s.stopped},
                      {"void_run", s.void_run}, {"complete", s.complete}, {"seconds", s.seconds}});
  return {{"provenance", to_json(run.provenance)},
          {"component", run.component},
          {"shard", run.shard},
          {"only", run.only},
          {"in_diff", run.in_diff ? to_json(*run.in_diff) : json(nullptr)},
          {"shards", shards},
          {"mutations", run.mutations.size()},
          {"stopped", run.stopped},
          {"void_run", run.void_run},
          {"complete", run.complete},
          {"seconds", run.seconds}};
}

json stryker_report(const RunRecord& run) {
  json files = json::object();
  for (const auto& r : run.mutations) {
    const Mutation& m = r.mutation;
    if (!files.contains(m.file)) {
      auto src = run.sources.find(m.file);
      files[m.file] = {{"language", "cpp"},
                       {"source", src == run.sources.end() ? "" : src->second},
                       {"mutants", json::array()}};
    }
    json killed_by = json::array();
    for (const auto& g : r.gates)
      for (const auto& c : g.failing_cases) killed_by.push_back(g.gate + "/" + c);
    std::string reason = r.detail;
    for (const auto& g : r.gates)
      if (g.verdict == GateVerdict::Failed)
        reason += (reason.empty() ? "" : "; ") + g.gate + ": " + std::to_string(g.failing_cases.size()) +
                  " failing cases / " + std::to_string(g.failed_assertions) + " failed assertions";
    if (m.expected == Expected::Survived) reason += (reason.empty() ? "" : "; ") + ("known residual: " + m.reason);
    if (r.outcome == Outcome::Equivalent) reason += (reason.empty() ? "" : "; ") + std::string("binary identical to baseline");
    json mutant = {{"id", m.id},
                   {"mutatorName", m.id},
                   {"description", m.description},
                   {"replacement", m.replacement},
                   {"location", {{"start", position_json(r.start)}, {"end", position_json(r.end)}}},
                   {"status", stryker_status(r.outcome)},
                   {"statusReason", reason},
                   {"killedBy", killed_by},
                   {"testsCompleted", static_cast<int>(r.gates.size())},
                   {"duration", static_cast<int64_t>(r.seconds * 1000)}};
    files[m.file]["mutants"].push_back(mutant);
  }
  return {{"schemaVersion", "1"},
          {"thresholds", {{"high", 80}, {"low", 60}}},
          {"files", files},
          {"framework", {{"name", "music3 mutation-battery"}}},
          {"config", {{"revision", run.provenance.revision}, {"label", run.provenance.label}}}};
}

std::string summary_markdown(const RunRecord& run) {
  std::ostringstream md;
  int unexpected = 0;
  for (const auto& r : run.mutations) unexpected += r.as_expected ? 0 : 1;
  md << "# Mutation battery: " << run.provenance.label << ", " << run.provenance.date << "\n\n";
  if (run.mutations.empty() && run.stopped.empty())
    md << "No mutation was selected" << (run.in_diff ? " (see the in-diff selection below)" : "") << ".\n\n";
  else if (run.void_run)
    md << "**VOID RUN**: " << run.stopped << "\n\n";
  else if (!run.stopped.empty())
    md << "**STOPPED EARLY**: " << run.stopped << "\n\n";
  else
    md << (unexpected ? "**" + std::to_string(unexpected) + " mutation(s) did not meet their expected outcome.**"
                      : std::string("Every mutation met its expected outcome."))
       << "\n\n";
  append_counts(md, run);
  md << "\n";
  append_table(md, run);
  append_notes(md, run);
  append_in_diff(md, run);
  append_shards(md, run);
  append_hashes(md, run);
  append_provenance(md, run.provenance, run.seconds);
  return md.str();
}

Reports::Reports(std::string dir) : dir_(std::move(dir)) {
  namespace fs = std::filesystem;
  const std::string lock = dir_ + ".lock";
  fs::create_directories(fs::path(lock).parent_path());
  lock_fd_ = ::open(lock.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0644);
  if (lock_fd_ < 0) throw ReportDirError("cannot open the report lock " + lock + ": " + std::strerror(errno));
  if (::flock(lock_fd_, LOCK_EX | LOCK_NB) != 0) {
    char holder[32] = {};
    const ssize_t n = ::pread(lock_fd_, holder, sizeof holder - 1, 0);
    ::close(lock_fd_);
    lock_fd_ = -1;
    throw ReportDirError("report directory " + dir_ + " is being written by another battery run (pid " +
                         std::string(holder, n > 0 ? size_t(n) : 0) + ", lock " + lock + ")");
  }
  const std::string pid = std::to_string(::getpid());
  if (::ftruncate(lock_fd_, 0) != 0 || ::pwrite(lock_fd_, pid.data(), pid.size(), 0) != ssize_t(pid.size()))
    throw ReportDirError("cannot write the report lock " + lock + ": " + std::strerror(errno));
  auto holds_report = [](const std::string& d) { return fs::exists(d + "/mutants.json"); };
  auto non_empty = [](const std::string& d) { return fs::is_directory(d) && !fs::is_empty(d); };
  if (non_empty(dir_)) {
    if (!holds_report(dir_))
      throw ReportDirError("report directory " + dir_ + " is not empty and holds no earlier battery report");
    std::string old = dir_ + ".old";
    if (non_empty(old) && !holds_report(old))
      throw ReportDirError(old + " is in the way of keeping the earlier report");
    fs::remove_all(old);
    fs::rename(dir_, old);
  }
  fs::create_directories(dir_ + "/diff");
  fs::create_directories(dir_ + "/log");
  write_text(dir_ + "/outcomes.jsonl", "");
}

Reports::~Reports() {
  if (lock_fd_ >= 0) {
    ::unlink((dir_ + ".lock").c_str());
    ::close(lock_fd_);
  }
}

void Reports::write_mutants(const std::vector<MutationResult>& planned) const {
  json list = json::array();
  for (const auto& r : planned) {
    const Mutation& m = r.mutation;
    list.push_back({{"index", r.index},
                    {"id", m.id},
                    {"component", m.component},
                    {"file", m.file},
                    {"line", r.start.line},
                    {"column", r.start.column},
                    {"original", m.original},
                    {"replacement", m.replacement},
                    {"gates", m.gates},
                    {"expected", expected_name(m.expected)},
                    {"reason", m.reason},
                    {"description", m.description}});
  }
  write_text(dir_ + "/mutants.json", list.dump(2) + "\n");
}

void Reports::write_diff(const std::string& id, const std::string& diff) const {
  write_text(dir_ + "/diff/" + id + ".diff", diff);
}

void Reports::append_outcome(const json& line) const {
  std::ofstream out(dir_ + "/outcomes.jsonl", std::ios::app);
  out << line.dump() << "\n";
  if (!out) throw std::runtime_error("cannot append to " + dir_ + "/outcomes.jsonl");
}

void Reports::write_final(const RunRecord& run) const {
  write_text(dir_ + "/run.json", run_json(run).dump(2) + "\n");
  write_text(dir_ + "/summary.md", summary_markdown(run));
  json report = stryker_report(run);
  write_text(dir_ + "/mutation.json", report.dump(2) + "\n");
  write_text(dir_ + "/mutation.html", report_html(run));
}

}  // namespace music3::battery
