#include "mutations/runner/in_diff.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>

#include <nlohmann/json.hpp>

namespace music3::battery {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
  return s;
}

std::vector<std::string> lines(const std::string& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string l; std::getline(in, l);)
    if (!l.empty()) out.push_back(l);
  return out;
}

bool covers(const std::string& source, const std::string& file) {
  return file == source || (!source.empty() && source.back() == '/' && file.rfind(source, 0) == 0);
}

// The path of `p` relative to `root`, or "" when it is not inside.
std::string inside(const fs::path& root, const fs::path& p) {
  fs::path rel = p.lexically_normal().lexically_relative(root.lexically_normal());
  if (rel.empty() || *rel.begin() == "..") return "";
  return rel.generic_string();
}

json parse_or_null(const std::string& text) {
  try {
    return json::parse(text);
  } catch (const json::parse_error&) {
    return nullptr;
  }
}

json member(const json& doc, const std::string& key) {
  return doc.is_object() && doc.contains(key) ? doc.at(key) : json();
}

}  // namespace

std::string merge_base_of(const std::string& repo, const std::string& base) {
  Captured rev = capture({"git", "-C", repo, "rev-parse", "--verify", "--quiet", base + "^{commit}"}, "");
  if (!rev.result.ok()) throw InDiffError("--in-diff: git knows no revision \"" + base + "\" in " + repo);
  Captured mb = capture({"git", "-C", repo, "merge-base", trim(rev.out), "HEAD"}, "");
  if (!mb.result.ok()) throw InDiffError("--in-diff: " + base + " and HEAD have no merge base");
  return trim(mb.out);
}

std::vector<std::string> changed_files(const std::string& repo, const std::string& merge_base) {
  return lines(capture_ok({"git", "-C", repo, "diff", "--name-only", "--no-renames", merge_base, "HEAD"}, ""));
}

std::map<std::string, std::string> changed_entries(const std::string& catalogue_path, const std::string& repo,
                                                   const std::string& merge_base,
                                                   const std::vector<std::string>& changed) {
  std::vector<fs::path> files;
  if (fs::is_directory(catalogue_path)) {
    for (const auto& e : fs::directory_iterator(catalogue_path))
      if (e.path().extension() == ".json") files.push_back(e.path());
  } else {
    files.push_back(catalogue_path);
  }
  std::sort(files.begin(), files.end());
  // Pass 1: the changed gate ids of every touched file (a gate serves mutations of any file).
  std::vector<std::pair<json, json>> docs;  // (now, at the merge base)
  std::set<std::string> changed_gates;
  for (const auto& f : files) {
    std::string rel = inside(fs::canonical(repo), fs::canonical(f));
    if (rel.empty() || std::find(changed.begin(), changed.end(), rel) == changed.end()) continue;
    std::ifstream in(f);
    std::stringstream now;
    now << in.rdbuf();
    Captured old = capture({"git", "-C", repo, "show", merge_base + ":" + rel}, "");
    docs.emplace_back(parse_or_null(now.str()), old.result.ok() ? parse_or_null(old.out) : json());
    const json gates = member(docs.back().first, "gates"), old_gates = member(docs.back().second, "gates");
    if (!gates.is_object()) continue;
    for (const auto& [id, g] : gates.items())
      if (!old_gates.is_object() || !old_gates.contains(id) || old_gates.at(id) != g) changed_gates.insert(id);
  }
  // Pass 2: new or changed mutation entries, and entries of any file that name a changed gate.
  std::map<std::string, std::string> out;
  for (const auto& [now, old] : docs) {
    const json mutations = member(now, "mutations"), old_mutations = member(old, "mutations");
    if (!mutations.is_array()) continue;
    for (const auto& m : mutations) {
      if (!m.is_object() || !m.contains("id") || !m.at("id").is_string()) continue;
      bool same = false;
      if (old_mutations.is_array())
        for (const auto& o : old_mutations) same = same || o == m;
      if (!same) out.emplace(m.at("id").get<std::string>(), "its catalogue entry is new or changed");
    }
  }
  if (changed_gates.empty()) return out;
  for (const auto& f : files) {
    std::ifstream in(f);
    std::stringstream text;
    text << in.rdbuf();
    const json mutations = member(parse_or_null(text.str()), "mutations");
    if (!mutations.is_array()) continue;
    for (const auto& m : mutations) {
      if (!m.is_object() || !m.contains("id") || !m.contains("gates") || !m.at("gates").is_array()) continue;
      for (const auto& g : m.at("gates"))
        if (g.is_string() && changed_gates.count(g.get<std::string>()))
          out.emplace(m.at("id").get<std::string>(), "the catalogue entry of its gate " + g.get<std::string>() +
                                                        " is new or changed");
    }
  }
  return out;
}

std::map<std::string, std::vector<std::string>> gate_sources(const Catalogue& c, const BuildDir& b,
                                                             const std::set<std::string>& gate_ids) {
  std::set<std::string> targets;
  for (const auto& t : lines(capture_ok({"ninja", "-C", b.dir, "-t", "targets", "all"}, "")))
    targets.insert(t.substr(0, t.find(':')));
  const fs::path source = fs::canonical(b.source);
  std::map<std::string, std::vector<std::string>> out;
  for (const auto& id : gate_ids) {
    const Gate& g = c.gates.at(id);
    std::set<std::string> sources(g.runs.begin(), g.runs.end());
    if (targets.count(g.executable)) {
      for (const auto& input : target_inputs(b, {g.executable})) {
        std::string rel = inside(source, input);
        if (rel.empty() || rel.rfind("engine/", 0) == 0) continue;
        std::string folder = fs::path(rel).parent_path().generic_string();
        sources.insert(folder.empty() ? rel : folder + "/");
      }
    }
    out[id].assign(sources.begin(), sources.end());
  }
  return out;
}

void choose_in_diff(const std::vector<Mutation>& candidates, const std::map<std::string, std::vector<std::string>>& sources,
                    const std::map<std::string, std::string>& entries, InDiff& d) {
  for (const auto& m : candidates) {
    std::string why;
    if (std::find(d.changed.begin(), d.changed.end(), m.file) != d.changed.end()) why = "its file " + m.file + " changed";
    for (const auto& g : m.gates) {
      auto it = sources.find(g);
      if (!why.empty() || it == sources.end()) continue;
      for (const auto& s : it->second)
        for (const auto& f : d.changed)
          if (why.empty() && covers(s, f)) why = "gate " + g + ": its source " + f + " changed";
    }
    if (auto e = entries.find(m.id); why.empty() && e != entries.end()) why = e->second;
    if (why.empty())
      d.skipped.push_back({m.id, "the change touches neither " + m.file + " nor its gates' sources or entries"});
    else
      d.chosen.push_back({m.id, why});
  }
}

}  // namespace music3::battery
