#include "mutations/runner/catalogue.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>

#include <nlohmann/json.hpp>

namespace music3::battery {
namespace {

using nlohmann::json;

[[noreturn]] void fail(const std::string& where, const std::string& what) {
  throw CatalogueError("catalogue: " + where + ": " + what);
}

void require_keys(const json& j, const std::string& where, const std::set<std::string>& required,
                  const std::set<std::string>& optional) {
  if (!j.is_object()) fail(where, "expected an object");
  for (const auto& [k, v] : j.items())
    if (!required.count(k) && !optional.count(k)) fail(where, "unknown key \"" + k + "\"");
  for (const auto& k : required)
    if (!j.contains(k)) fail(where, "missing key \"" + k + "\"");
}

std::string string_at(const json& j, const std::string& key, const std::string& where) {
  if (!j.contains(key)) return "";
  if (!j.at(key).is_string()) fail(where, "\"" + key + "\" must be a string");
  return j.at(key).get<std::string>();
}

std::vector<std::string> strings_at(const json& j, const std::string& key, const std::string& where) {
  std::vector<std::string> out;
  if (!j.contains(key)) return out;
  if (!j.at(key).is_array()) fail(where, "\"" + key + "\" must be an array of strings");
  for (const auto& e : j.at(key)) {
    if (!e.is_string()) fail(where, "\"" + key + "\" must be an array of strings");
    out.push_back(e.get<std::string>());
  }
  return out;
}

std::string read_text(const std::filesystem::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

Gate parse_gate(const std::string& id, const json& j) {
  std::string where = "gate \"" + id + "\"";
  require_keys(j, where, {"executable", "labels"}, {"args", "runs"});
  Gate g{id, string_at(j, "executable", where), strings_at(j, "args", where), strings_at(j, "labels", where),
         strings_at(j, "runs", where)};
  if (g.executable.empty() || g.executable.find('/') != std::string::npos)
    fail(where, "\"executable\" must be a plain name in <build>/bin, got \"" + g.executable + "\"");
  if (g.has_label("cpu") == g.has_label("gpu")) fail(where, "labels must contain exactly one of cpu, gpu");
  return g;
}

Mutation parse_mutation(const json& j, size_t index, const Catalogue& c, const std::string& repo_root) {
  std::string where = "mutation #" + std::to_string(index);
  require_keys(j, where, {"id", "file", "original", "replacement", "gates", "expected"}, {"reason", "description"});
  Mutation m;
  m.id = string_at(j, "id", where);
  if (m.id.empty() || m.id.find_first_of("/ \t\n") != std::string::npos)
    fail(where, "\"id\" must be non-empty without spaces or slashes");
  where = "mutation \"" + m.id + "\"";
  m.file = string_at(j, "file", where);
  m.original = string_at(j, "original", where);
  m.replacement = string_at(j, "replacement", where);
  m.gates = strings_at(j, "gates", where);
  m.reason = string_at(j, "reason", where);
  m.description = string_at(j, "description", where);
  std::string expected = string_at(j, "expected", where);
  if (expected == "killed") {
    m.expected = Expected::Killed;
  } else if (expected == "survived") {
    m.expected = Expected::Survived;
    if (m.reason.empty()) fail(where, "expected \"survived\" needs a \"reason\" (the known residual)");
  } else {
    fail(where, "\"expected\" must be \"killed\" or \"survived\", got \"" + expected + "\"");
  }
  if (m.original.empty()) fail(where, "\"original\" is empty");
  if (m.original == m.replacement) fail(where, "\"replacement\" equals \"original\"");
  if (m.gates.empty()) fail(where, "\"gates\" is empty");
  for (const auto& g : m.gates)
    if (!c.gates.count(g)) fail(where, "unknown gate id \"" + g + "\"");
  std::filesystem::path file = std::filesystem::path(repo_root) / m.file;
  if (m.file.empty() || std::filesystem::path(m.file).is_absolute() || !std::filesystem::is_regular_file(file))
    fail(where, "file \"" + m.file + "\" is not a file under " + repo_root);
  size_t n = count_occurrences(read_text(file), m.original);
  if (n != 1)
    fail(where, "\"original\" occurs " + std::to_string(n) + " times in " + m.file + " (must be exactly once)");
  return m;
}

}  // namespace

bool Gate::has_label(const std::string& l) const {
  for (const auto& x : labels)
    if (x == l) return true;
  return false;
}

bool Gate::runs_file(const std::string& file) const {
  for (const auto& r : runs)
    if (file == r || (!r.empty() && r.back() == '/' && file.rfind(r, 0) == 0)) return true;
  return false;
}

const char* expected_name(Expected e) { return e == Expected::Killed ? "killed" : "survived"; }

size_t count_occurrences(const std::string& text, const std::string& needle) {
  size_t n = 0;
  for (size_t pos = text.find(needle); pos != std::string::npos; pos = text.find(needle, pos + needle.size())) ++n;
  return n;
}

bool SetupStep::needed_by(const std::vector<std::string>& selected_gates) const {
  if (for_gates.empty()) return true;
  for (const auto& g : selected_gates)
    if (std::find(for_gates.begin(), for_gates.end(), g) != for_gates.end()) return true;
  return false;
}

namespace {

// Adds one document's setup steps and gates to `c` (`source` names the file in errors).
void add_setup_and_gates(const json& j, const std::string& file, Catalogue& c,
                         std::map<std::string, std::string>& gate_source) {
  const std::string source = file.empty() ? "" : file + ": ";
  require_keys(j, source + "top level", {"gates", "mutations"}, {"setup", "battery_cost_s"});
  const size_t first_step = c.setup.size();
  if (j.contains("setup")) {
    if (!j.at("setup").is_array()) fail("setup", "must be an array");
    for (size_t i = 0; i < j.at("setup").size(); ++i) {
      std::string where = "setup #" + std::to_string(i);
      const json& s = j.at("setup")[i];
      require_keys(s, where, {"command"}, {"targets"});
      c.setup.push_back({strings_at(s, "targets", where), string_at(s, "command", where), {},
                         std::filesystem::path(file).stem().string()});
    }
  }
  if (!j.at("gates").is_object()) fail(source + "gates", "must be an object of gate id -> gate");
  for (const auto& [id, g] : j.at("gates").items()) {
    auto [it, added] = gate_source.emplace(id, file);
    if (!added) fail("gate \"" + id + "\"", "defined in both " + it->second + " and " + file);
    c.gates.emplace(id, parse_gate(id, g));
    for (size_t i = first_step; i < c.setup.size(); ++i) c.setup[i].for_gates.push_back(id);
  }
}

void add_mutations(const json& j, const std::string& repo_root, const std::string& component, Catalogue& c,
                   std::set<std::string>& ids) {
  if (!j.at("mutations").is_array()) fail("mutations", "must be an array");
  if (j.contains("battery_cost_s")) {
    const json& cost = j.at("battery_cost_s");
    if (!cost.is_number() || !(cost.get<double>() > 0)) fail("battery_cost_s", "must be a number of seconds > 0");
    c.component_cost_s[component] = cost.get<double>();
  }
  for (size_t i = 0; i < j.at("mutations").size(); ++i) {
    Mutation m = parse_mutation(j.at("mutations")[i], i, c, repo_root);
    m.component = component;
    if (!ids.insert(m.id).second) fail("mutation \"" + m.id + "\"", "duplicate id");
    c.mutations.push_back(std::move(m));
  }
}

json read_json(const std::string& path) {
  std::ifstream in(path);
  if (!in) throw CatalogueError("catalogue: cannot open " + path);
  try {
    return json::parse(in);
  } catch (const json::parse_error& e) {
    throw CatalogueError("catalogue: " + path + " is not valid JSON: " + e.what());
  }
}

}  // namespace

Catalogue parse_catalogue(const json& j, const std::string& repo_root, const std::string& component) {
  Catalogue c;
  std::map<std::string, std::string> gate_source;
  std::set<std::string> ids;
  add_setup_and_gates(j, "", c, gate_source);
  add_mutations(j, repo_root, component, c, ids);
  return c;
}

Catalogue load_catalogue(const std::string& path, const std::string& repo_root) {
  namespace fs = std::filesystem;
  if (!fs::is_directory(path)) return parse_catalogue(read_json(path), repo_root, fs::path(path).stem().string());
  std::vector<fs::path> files;
  for (const auto& e : fs::directory_iterator(path))
    if (e.path().extension() == ".json") files.push_back(e.path());
  std::sort(files.begin(), files.end());
  if (files.empty()) throw CatalogueError("catalogue: no *.json in " + path);
  std::vector<json> docs;
  Catalogue c;
  std::map<std::string, std::string> gate_source;
  for (const auto& f : files) {
    docs.push_back(read_json(f.string()));
    add_setup_and_gates(docs.back(), f.filename().string(), c, gate_source);
  }
  std::set<std::string> ids;
  for (size_t i = 0; i < files.size(); ++i) add_mutations(docs[i], repo_root, files[i].stem().string(), c, ids);
  return c;
}

std::string label_of(const Catalogue& c, const Mutation& m) {
  for (const auto& g : m.gates)
    if (!c.gates.at(g).has_label("cpu")) return "gpu";
  return "cpu";
}

std::set<std::string> only_ids(const std::string& only) {
  std::set<std::string> ids;
  std::stringstream list(only);
  for (std::string id; std::getline(list, id, ',');)
    if (!id.empty()) ids.insert(id);
  return ids;
}

namespace {

// The shard of each component of `selected` (select_mutations' rule), or {} when there is no shard or fewer
// components than shards.
std::map<std::string, int> component_shards(const Catalogue& c, const std::vector<Mutation>& selected,
                                            const std::optional<Shard>& shard) {
  if (!shard) return {};
  std::map<std::string, size_t> count;
  for (const auto& m : selected) ++count[m.component];
  if (count.size() < static_cast<size_t>(shard->n)) return {};
  std::vector<std::pair<double, std::string>> by_cost;
  for (const auto& [component, n] : count) {
    auto it = c.component_cost_s.find(component);
    by_cost.push_back({it != c.component_cost_s.end() ? it->second : kDefaultMutationCostS * double(n), component});
  }
  std::sort(by_cost.begin(), by_cost.end(),
            [](const auto& a, const auto& b) { return a.first != b.first ? a.first > b.first : a.second < b.second; });
  std::vector<double> load(static_cast<size_t>(shard->n), 0.0);
  std::map<std::string, int> out;
  for (const auto& [cost, component] : by_cost) {
    const auto k = static_cast<int>(std::min_element(load.begin(), load.end()) - load.begin());
    load[static_cast<size_t>(k)] += cost;
    out[component] = k;
  }
  return out;
}

}  // namespace

std::vector<Mutation> select_mutations(const Catalogue& c, const Selection& s) {
  if (!s.component.empty()) {
    std::set<std::string> known;
    for (const auto& m : c.mutations) known.insert(m.component);
    if (!known.count(s.component)) {
      std::string list;
      for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
      throw CatalogueError("catalogue: --component: no component \"" + s.component + "\" (known: " + list + ")");
    }
  }
  const std::set<std::string> only = only_ids(s.only);
  for (const auto& id : only) {
    bool known = false;
    for (const auto& m : c.mutations) known = known || m.id == id;
    if (!known) throw CatalogueError("catalogue: --only: no mutation with id \"" + id + "\"");
  }
  std::vector<Mutation> by_label;
  for (const auto& m : c.mutations) {
    if (!s.component.empty() && m.component != s.component) continue;
    if (s.ids && !s.ids->count(m.id)) continue;
    if (s.label.empty() || s.label == label_of(c, m)) {
      by_label.push_back(m);
      by_label.back().position = by_label.size() - 1;
    }
  }
  const std::map<std::string, int> shard_of = component_shards(c, by_label, s.shard);
  std::vector<Mutation> out;
  for (const auto& m : by_label) {
    if (s.shard && (shard_of.empty() ? static_cast<int>(m.position % static_cast<size_t>(s.shard->n))
                                     : shard_of.at(m.component)) != s.shard->k)
      continue;
    if (!only.empty() && !only.count(m.id)) continue;
    out.push_back(m);
  }
  return out;
}

}  // namespace music3::battery
