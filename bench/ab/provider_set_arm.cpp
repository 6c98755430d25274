// ProviderSetArm and the parsing of a spec's provider suffixes (provider_set_arm.h).
#include "bench/ab/provider_set_arm.h"

#include <algorithm>
#include <sstream>
#include <stdexcept>

#include "engine/ops/registry.h"

namespace music3::bench {
namespace {

[[noreturn]] void bad(const std::string& spec, const std::string& why) {
  throw std::invalid_argument("arm '" + spec + "': " + why);
}

// Applies the toggles; its destructor restores what each provider was before (also when the inner arm throws).
class ScopedProviderSet {
 public:
  explicit ScopedProviderSet(const std::vector<ProviderToggle>& toggles) {
    for (const auto& t : toggles) {
      const bool before = ops::registry().enabled(t.name);  // unknown: set_enabled() refuses it, naming the known
      ops::registry().set_enabled(t.name, t.enabled);
      restore_.push_back({t.name, before});
    }
  }
  ~ScopedProviderSet() {
    for (auto it = restore_.rbegin(); it != restore_.rend(); ++it) ops::registry().set_enabled(it->name, it->enabled);
  }
  ScopedProviderSet(const ScopedProviderSet&) = delete;
  ScopedProviderSet& operator=(const ScopedProviderSet&) = delete;

 private:
  std::vector<ProviderToggle> restore_;
};

}  // namespace

std::pair<std::string, std::vector<ProviderToggle>> split_provider_set(const std::string& spec) {
  const size_t plus = std::min(spec.find("+disable="), spec.find("+enable="));  // the first suffix
  if (plus == std::string::npos) return {spec, {}};
  const std::string base = spec.substr(0, plus), kind = base.substr(0, base.find(':'));
  if (kind == "cmd" || kind == "music3" || kind.find("peer") != std::string::npos)
    bad(spec, "a provider set (+disable=, +enable=) applies to this process's arms only, not to '" + kind + "'");
  std::vector<ProviderToggle> toggles;
  std::istringstream parts(spec.substr(plus + 1));
  for (std::string part; std::getline(parts, part, '+');) {
    const auto eq = part.find('=');
    const std::string verb = part.substr(0, eq);
    if (eq == std::string::npos || (verb != "disable" && verb != "enable"))
      bad(spec, "'+" + part + "' is not +disable=NAME[,NAME...] or +enable=NAME[,NAME...]");
    std::istringstream names(part.substr(eq + 1));
    for (std::string name; std::getline(names, name, ',');) {
      if (name.empty()) bad(spec, "an empty provider name in '+" + part + "'");
      toggles.push_back({name, verb == "enable"});
    }
  }
  if (toggles.empty()) bad(spec, "a provider suffix without provider names");
  return {base, toggles};
}

ProviderSetArm::ProviderSetArm(std::string spec, std::vector<ProviderToggle> toggles,
                               const std::function<std::unique_ptr<Arm>()>& make_inner)
    : spec_(std::move(spec)), toggles_(std::move(toggles)) {
  try {
    ScopedProviderSet set(toggles_);
    inner_ = make_inner();
  } catch (const std::invalid_argument& e) {
    bad(spec_, e.what());
  }
}

std::vector<double> ProviderSetArm::run_repetition(int warmup, int frames) {
  ScopedProviderSet set(toggles_);
  return inner_->run_repetition(warmup, frames);
}

nlohmann::json ProviderSetArm::describe() const {
  nlohmann::json d = inner_->describe();
  nlohmann::json disabled = nlohmann::json::array(), enabled = nlohmann::json::array();
  for (const auto& t : toggles_) (t.enabled ? enabled : disabled).push_back(t.name);
  d["providers_disabled"] = disabled;
  d["providers_enabled"] = enabled;
  d["spec"] = spec_;
  return d;
}

}  // namespace music3::bench
