// The mutation catalogue (mutations/catalogue/<component>.json, one file per component)
// and the selection of a run.
// Contract: load_catalogue() reads one file, or every *.json of a folder in name order
// (the file's stem is its mutations' component; gates and setup steps of all files are
// merged, and a gate id defined twice is refused naming both files). It returns only a
// catalogue in which every entry can run:
// ids unique, every key known, each mutation's `original` found exactly once in its
// file under repo_root, replacement different, every gate id defined, each gate
// labelled cpu or gpu, and a `reason` on every expected survivor. Otherwise it throws
// CatalogueError naming the entry and the problem. Pure functions of their inputs
// (and the files they read): thread-safe.
#pragma once
#include <map>
#include <optional>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

namespace music3::battery {

class CatalogueError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// Built once after configure (targets), then run in the build directory (command), when the
// battery selected one of the gates of the catalogue file that declares the step (a component's
// oracle set-up runs only for its own gates; a file without gates gives steps that always run).
struct SetupStep {
  std::vector<std::string> targets;
  std::string command;
  std::vector<std::string> for_gates;  // the declaring file's gate ids
  std::string component;               // the declaring file's stem ("" for a one-document catalogue)
  bool needed_by(const std::vector<std::string>& selected_gates) const;
};

struct Gate {
  std::string id;
  std::string executable;  // a name in <build>/bin, also its ninja target
  std::vector<std::string> args;
  std::vector<std::string> labels;
  // Source paths (files, or folders ending in '/') the gate executes at run time rather than
  // compiles: a mutation there changes no object, so it is proven by the gate run alone.
  std::vector<std::string> runs;
  bool has_label(const std::string& l) const;
  bool runs_file(const std::string& file) const;
};

enum class Expected { Killed, Survived };
const char* expected_name(Expected e);

struct Mutation {
  std::string id;
  std::string component;  // the catalogue file's stem ("depth", "tokenizer", ...)
  std::string file;  // relative to the repository root
  std::string original;
  std::string replacement;
  std::vector<std::string> gates;
  Expected expected = Expected::Killed;
  std::string reason;  // why an expected survivor is a known residual
  std::string description;
  // Set by select_mutations(): the index in the run's selection before --shard and --only, so that
  // merged shards line up with one unsharded run.
  size_t position = 0;
};

struct Catalogue {
  std::vector<SetupStep> setup;
  std::map<std::string, Gate> gates;
  std::vector<Mutation> mutations;
  // Per component, what its CPU battery costs on the 2-core CI machine in seconds (the catalogue file's optional
  // "battery_cost_s": its mutations' seconds, its CPU gates' seconds twice (baseline and final check), its setup and
  // its gate binaries' build, measured in whole-catalogue runs); a component without it counts kDefaultMutationCostS
  // per mutation.
  std::map<std::string, double> component_cost_s;
};
inline constexpr double kDefaultMutationCostS = 8.0;

// One catalogue document; `component` is given to every mutation in it.
Catalogue parse_catalogue(const nlohmann::json& j, const std::string& repo_root, const std::string& component = "");
Catalogue load_catalogue(const std::string& path, const std::string& repo_root);

struct Shard {
  int k = 0;
  int n = 1;
};

// --component first ("" = all; an unknown component throws), then the in-diff ids (when set:
// only those), then "cpu": mutations whose gates all carry label cpu, "gpu": the others, "" = all;
// then the shard, then --only (one id or a comma-separated list). An unknown --only id throws.
// Shard k/n: when the selection spans at least n components, whole components, dealt out by cost (the costliest
// first, each to the shard with the least cost so far; ties by name, then by lower k), so that each shard runs a
// component's setup and baseline gates once and the two shards cost about the same; otherwise positions k, k + n, ...
struct Selection {
  std::string label;
  std::optional<Shard> shard;
  std::string only;
  std::string component;
  std::string in_diff_base = {};               // --in-diff BASE ("" = not asked)
  std::optional<std::set<std::string>> ids = {};  // the in-diff choice (in_diff.h), once made
};
std::vector<Mutation> select_mutations(const Catalogue& c, const Selection& s);
// The ids of an --only value: "a,b,c" -> {a, b, c}; "" -> {}.
std::set<std::string> only_ids(const std::string& only);
// "cpu" when every gate of m is labelled cpu, else "gpu": the --label the mutation runs under.
std::string label_of(const Catalogue& c, const Mutation& m);

// Number of non-overlapping occurrences of needle in text.
size_t count_occurrences(const std::string& text, const std::string& needle);

}  // namespace music3::battery
