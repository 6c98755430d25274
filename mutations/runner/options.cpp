#include "mutations/runner/options.h"

#include <filesystem>
#include <thread>

#include "mutations/runner/build.h"
#include "mutations/runner/worktree.h"

namespace music3::battery {
namespace {

int to_int(const std::string& flag, const std::string& v, int min) {
  size_t used = 0;
  int n = 0;
  try {
    n = std::stoi(v, &used);
  } catch (const std::exception&) {
    used = 0;
  }
  if (used != v.size() || v.empty() || n < min)
    throw UsageError(flag + " wants an integer >= " + std::to_string(min) + ", got \"" + v + "\"");
  return n;
}

Shard parse_shard(const std::string& v) {
  size_t slash = v.find('/');
  if (slash == std::string::npos) throw UsageError("--shard wants k/n, got \"" + v + "\"");
  Shard s{to_int("--shard k", v.substr(0, slash), 0), to_int("--shard n", v.substr(slash + 1), 1)};
  if (s.k >= s.n) throw UsageError("--shard k/n needs k < n (k is 0-based), got \"" + v + "\"");
  return s;
}

}  // namespace

const char* const kUsage =
    "usage: mutation-battery [--repo DIR] [--catalogue PATH] [--component NAME] [--label cpu|gpu] [--shard k/n]\n"
    "                        [--in-diff BASE] [--only ID[,ID...]] [--out DIR] [--jobs N] [--verify-every K]\n"
    "                        [--min-gate-timeout S] [--keep-worktree]\n"
    "       mutation-battery merge OUT_DIR SHARD_DIR...\n"
    "       mutation-battery owed [--repo DIR] [--catalogue PATH] [--reports DIR] [--label cpu|gpu] [--json]\n"
    "Patches, rebuilds, hashes and gates every selected catalogue mutation in a private git\n"
    "worktree of HEAD. --in-diff BASE keeps the mutations that the change BASE...HEAD touches (its target\n"
    "file, a source of one of its gates, or its catalogue entry; mutations/README.md) and lists the chosen\n"
    "and the skipped ones in the report. `merge` combines shard reports of one baseline into one report.\n"
    "`owed` lists the mutations without a current verdict in the committed reports (default reports/mutations/):\n"
    "never judged, the newest verdict not as expected, or the catalogue entry changed since; exit 2 when any is.\n"
    "It prints their ids as one --only list and as one list per set-up they need (a GPU call that takes the\n"
    "pipeline oracle's set-up spends minutes on it before its first verdict).\n"
    "Exit: 0 all as expected, 1 bad usage, 2 an unexpected outcome, 4 baseline failure, 5 bad catalogue,\n"
    "unknown BASE, report folder in use or shards that do not merge, 8 dirty tree, 9 void run,\n"
    "70 infrastructure error; 130/143 when interrupted (the shared table: engine/core/exit_code.h).\n";

bool parse_options(int argc, char** argv, BatteryOptions& o) {
  std::string repo_arg = ".";
  o.jobs = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
  o.command = "mutation-battery";
  for (int i = 1; i < argc; ++i) {
    o.command += ' ';
    o.command += join_command({argv[i]});
  }
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto value = [&]() -> std::string {
      if (i + 1 >= argc) throw UsageError(a + " needs a value");
      return argv[++i];
    };
    if (a == "--help" || a == "-h") return false;
    if (a == "--repo") repo_arg = value();
    else if (a == "--catalogue") o.catalogue = value();
    else if (a == "--component") o.selection.component = value();
    else if (a == "--label") {
      o.selection.label = value();
      if (o.selection.label != "cpu" && o.selection.label != "gpu")
        throw UsageError("--label wants cpu or gpu, got \"" + o.selection.label + "\"");
    } else if (a == "--shard") o.selection.shard = parse_shard(value());
    else if (a == "--only") o.selection.only = value();
    else if (a == "--in-diff") {
      o.selection.in_diff_base = value();
      if (o.selection.in_diff_base.empty() || o.selection.in_diff_base[0] == '-')
        throw UsageError("--in-diff wants a revision, got \"" + o.selection.in_diff_base + "\"");
    }
    else if (a == "--out") o.out = value();
    else if (a == "--jobs") o.jobs = to_int(a, value(), 1);
    else if (a == "--verify-every") o.verify_every = to_int(a, value(), 0);
    else if (a == "--min-gate-timeout") o.min_gate_timeout_s = to_int(a, value(), 1);
    else if (a == "--keep-worktree") o.keep_worktree = true;
    else throw UsageError("unknown argument \"" + a + "\"");
  }
  if (!std::filesystem::is_directory(repo_arg)) throw UsageError("--repo " + repo_arg + " is not a folder");
  o.repo = repo_toplevel(repo_arg);
  if (o.catalogue.empty()) o.catalogue = o.repo + "/mutations/catalogue";
  o.catalogue = std::filesystem::absolute(o.catalogue).string();
  if (!o.out.empty()) o.out = std::filesystem::absolute(o.out).string();
  return true;
}

}  // namespace music3::battery
