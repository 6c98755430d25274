#include "mutations/runner/merge.h"

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>
#include <set>

#include "mutations/runner/battery.h"
#include "mutations/runner/report_read.h"
#include "mutations/runner/reports.h"

namespace music3::battery {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

struct ShardReport {
  std::string dir;
  ReadReport report;
  int k = 0, n = 1;
};

void parse_shard(ShardReport& s) {
  const std::string& spec = s.report.run.shard;
  if (spec.empty()) return;
  size_t slash = spec.find('/');
  s.k = std::stoi(spec.substr(0, slash));
  s.n = std::stoi(spec.substr(slash + 1));
}

// The refusals of the contract, in order.
void check(const std::vector<ShardReport>& shards) {
  const RunRecord& a = shards.front().report.run;
  auto same = [&](const ShardReport& s, const std::string& what, const std::string& x, const std::string& y) {
    if (x != y)
      throw MergeError("shards of different runs: " + shards.front().dir + " has " + what + " \"" + x + "\", " + s.dir +
                       " has \"" + y + "\"");
  };
  std::set<int> ks;
  std::map<std::string, std::string> planned_in;
  for (const auto& s : shards) {
    const RunRecord& b = s.report.run;
    same(s, "revision", a.provenance.revision, b.provenance.revision);
    same(s, "component", a.component, b.component);
    same(s, "label", a.provenance.label, b.provenance.label);
    same(s, "--only", a.only, b.only);
    same(s, "in-diff merge base", a.in_diff ? a.in_diff->merge_base : "", b.in_diff ? b.in_diff->merge_base : "");
    same(s, "shard count", std::to_string(shards.front().n), std::to_string(s.n));
    // The same sources (revision, clean trees) through the same tools. Binary hashes are not compared: each shard
    // builds in its own folder and some gates embed paths, so equal code hashes differently across shards.
    same(s, "C++ compiler", a.provenance.cxx, b.provenance.cxx);
    same(s, "nvcc", a.provenance.nvcc, b.provenance.nvcc);
    same(s, "cmake", a.provenance.cmake, b.provenance.cmake);
    same(s, "CUDA providers", a.provenance.cuda ? "on" : "off", b.provenance.cuda ? "on" : "off");
    if (b.shard.empty() && shards.size() > 1) throw MergeError(s.dir + " is an unsharded run: it merges with nothing");
    for (const auto& r : s.report.planned) {
      auto [it, added] = planned_in.emplace(r.mutation.id, s.dir);
      if (!added) throw MergeError("overlapping mutants: " + r.mutation.id + " is planned in " + it->second + " and " + s.dir);
    }
    if (!ks.insert(s.k).second) throw MergeError("two folders are shard " + b.shard + ": " + s.dir);
  }
  for (int k = 0; k < shards.front().n; ++k)
    if (!ks.count(k))
      throw MergeError("shard " + std::to_string(k) + "/" + std::to_string(shards.front().n) + " is missing");
}

void copy_logs(const ShardReport& s, const std::string& out, const std::set<std::string>& ids) {
  for (const char* sub : {"diff", "log"}) {
    fs::path from = fs::path(s.dir) / sub;
    if (!fs::is_directory(from)) continue;
    for (const auto& e : fs::directory_iterator(from)) {
      std::string stem = e.path().stem().string(), name = e.path().filename().string();
      std::string to = ids.count(stem) ? name : "shard-" + std::to_string(s.k) + "-" + name;
      fs::copy_file(e.path(), fs::path(out) / sub / to, fs::copy_options::overwrite_existing);
    }
  }
}

}  // namespace

int run_merge(const std::string& out_dir, const std::vector<std::string>& shard_dirs, const std::string& command) {
  if (shard_dirs.empty()) throw MergeError("merge needs at least one shard folder");
  std::vector<ShardReport> shards;
  for (const auto& d : shard_dirs) {
    ShardReport s{fs::absolute(d).lexically_normal().string(), read_report(d)};
    parse_shard(s);
    shards.push_back(std::move(s));
  }
  std::sort(shards.begin(), shards.end(), [](const ShardReport& x, const ShardReport& y) { return x.k < y.k; });
  check(shards);
  const std::string out = fs::absolute(out_dir).lexically_normal().string();
  for (const auto& s : shards)
    if (s.dir == out) throw MergeError("OUT_DIR " + out + " is one of the shards");

  RunRecord merged;
  const RunRecord& first = shards.front().report.run;
  merged.provenance = first.provenance;
  merged.provenance.command = command;
  merged.component = first.component;
  merged.only = first.only;
  merged.in_diff = first.in_diff;
  merged.complete = true;
  std::vector<MutationResult> planned;
  std::vector<json> baselines;
  for (const auto& s : shards) {
    const RunRecord& r = s.report.run;
    if (r.provenance.machine != merged.provenance.machine) merged.provenance.machine = "several (see Shards)";
    merged.shards.push_back({s.dir, r.shard.empty() ? "0/1" : r.shard, r.provenance.machine, r.stopped, r.void_run,
                             r.complete, r.seconds});
    merged.seconds = std::max(merged.seconds, r.seconds);
    merged.complete = merged.complete && r.complete;
    merged.void_run = merged.void_run || r.void_run;
    if (!r.stopped.empty())
      merged.stopped += (merged.stopped.empty() ? "" : "; ") + ("shard " + r.shard + ": " + r.stopped);
    // Hashes are per shard: an executable is named with its shard, in the baseline and in every check.
    const std::string tag = r.shard.empty() ? "" : " (shard " + r.shard + ")";
    for (const auto& [exe, h] : r.baseline_hashes) merged.baseline_hashes[exe + tag] = h;
    for (const auto& g : r.baseline_gates) merged.baseline_gates.push_back(g);
    merged.sources.insert(r.sources.begin(), r.sources.end());
    merged.mutations.insert(merged.mutations.end(), r.mutations.begin(), r.mutations.end());
    planned.insert(planned.end(), s.report.planned.begin(), s.report.planned.end());
    for (VerifyResult v : r.verifications) {
      if (!r.shard.empty()) v.shard = r.shard;
      std::map<std::string, std::string> tagged;
      for (const auto& [exe, h] : v.hashes) tagged[exe + tag] = h;
      v.hashes = std::move(tagged);
      merged.verifications.push_back(std::move(v));
    }
    if (s.report.has_baseline) {
      json gates = json::array();
      for (const auto& g : r.baseline_gates) gates.push_back(to_json(g));
      json line = {{"phase", "baseline"}, {"binary_sha256", r.baseline_hashes}, {"gates", gates}};
      if (!r.shard.empty()) line["shard"] = r.shard;
      baselines.push_back(line);
    }
  }
  auto by_index = [](const MutationResult& x, const MutationResult& y) { return x.index < y.index; };
  std::sort(planned.begin(), planned.end(), by_index);
  std::sort(merged.mutations.begin(), merged.mutations.end(), by_index);

  Reports reports(out);  // absolute: a relative OUT_DIR has no parent folder to create
  reports.write_mutants(planned);
  for (const auto& b : baselines) reports.append_outcome(b);
  for (const auto& r : merged.mutations) reports.append_outcome(to_json(r));
  for (const auto& v : merged.verifications) reports.append_outcome(to_json(v));
  std::set<std::string> ids;
  for (const auto& r : planned) ids.insert(r.mutation.id);
  for (const auto& s : shards) copy_logs(s, reports.dir(), ids);
  reports.write_final(merged);

  bool unexpected = false;
  for (const auto& r : merged.mutations) unexpected = unexpected || !r.as_expected;
  bool baseline_failed = false;
  for (const auto& s : shards) baseline_failed = baseline_failed || s.report.run.stopped.rfind("baseline failure", 0) == 0;
  std::fprintf(stderr, "mutation-battery merge: %zu shards, %zu of %zu planned mutations judged%s; report in %s\n",
               shards.size(), merged.mutations.size(), planned.size(),
               unexpected ? ", UNEXPECTED outcomes" : "", reports.dir().c_str());
  if (merged.void_run) return kExitVoid;
  if (baseline_failed) return kExitBaselineFailure;
  if (!merged.complete) {
    std::fprintf(stderr, "mutation-battery merge: a shard did not run to the end: %s\n", merged.stopped.c_str());
    return kExitBadInput;
  }
  return unexpected ? kExitUnexpected : kExitAsExpected;
}

}  // namespace music3::battery
