// --in-diff BASE: the catalogued mutations that the change BASE...HEAD can affect (cargo-mutants'
// --in-diff, Stryker's incremental mode), so that a merge gate runs those and says which it skipped.
// The change is `git diff --name-only --no-renames <merge base of BASE and HEAD> HEAD`. A mutation is
// chosen when the change touches
//   1. its target file;
//   2. a source of one of its gates. A gate's sources are the folders of the files its executable is
//      compiled from (`ninja -t inputs <executable>` in the battery's configured build) that lie in the
//      repository outside engine/ (its test sources, its gate library, the harness code it links, and the
//      headers and data beside them), plus the paths in its `runs`. Engine files are never gate sources, so
//      a change to one engine file chooses exactly the mutations of that file. A gate whose executable is
//      not a target of this build (a CUDA gate in a CPU-only configure) has only its `runs`;
//   3. its catalogue entry or the entry of one of its gates (new, or different at the merge base).
// Pure functions (choose_in_diff) and read-only git/ninja queries: thread-safe.
#pragma once
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <vector>

#include "mutations/runner/build.h"
#include "mutations/runner/catalogue.h"

namespace music3::battery {

// A revision that git does not know, or no merge base: named, exit 5 (bad input).
class InDiffError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

struct InDiffEntry {
  std::string id;
  std::string why;  // chosen: what the change touched; skipped: why not
};

struct InDiff {
  std::string base;        // as given
  std::string merge_base;  // full hex
  std::vector<std::string> changed;  // repository-relative paths
  std::vector<InDiffEntry> chosen;   // every label: a run keeps its own label's
  std::vector<InDiffEntry> skipped;
  std::map<std::string, std::vector<std::string>> gate_sources;  // rule 2, as found (empty when nothing changed)
};

std::string merge_base_of(const std::string& repo, const std::string& base);
std::vector<std::string> changed_files(const std::string& repo, const std::string& merge_base);

// Mutation id -> why, for the mutations whose entry (or one of whose gates' entries) in the catalogue at
// `catalogue_path` (a file or a folder of *.json inside `repo`) is new or differs at `merge_base`.
std::map<std::string, std::string> changed_entries(const std::string& catalogue_path, const std::string& repo,
                                                   const std::string& merge_base,
                                                   const std::vector<std::string>& changed);

// Gate id -> its sources (folders end in '/'), by rule 2 above, from a configured build.
std::map<std::string, std::vector<std::string>> gate_sources(const Catalogue& c, const BuildDir& b,
                                                             const std::set<std::string>& gate_ids);

// Rules 1-3 over `candidates`, in their order.
void choose_in_diff(const std::vector<Mutation>& candidates, const std::map<std::string, std::vector<std::string>>& sources,
                    const std::map<std::string, std::string>& entries, InDiff& d);

}  // namespace music3::battery
