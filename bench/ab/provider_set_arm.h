// An in-process arm run under its own provider set: an arm spec may end in `+disable=NAME[,NAME...]` and/or
// `+enable=NAME[,NAME...]` (registry provider names; enable is for opt-in providers), so one binary can time the
// same arm with and without a provider, side by side (e.g. `vocoder:device:cuda:full` against
// `vocoder:device:cuda:full+disable=cuda.conv1d.cutlass_sm90.fused`).
// Contract: the set is applied around everything the inner arm does (its construction, where it may stage weights
// or capture device graphs, and each repetition) and the registry's previous enabled state is restored after each,
// so the other arm of the A/B runs under its own set; an unknown provider name is refused (std::invalid_argument
// naming the spec and the known providers) before the inner arm is built. split_provider_set() refuses a suffix on a
// spec kind that runs outside this process (peer, cmd, music3), where the registry is not ours to set.
#pragma once
#include <functional>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "bench/ab/arm.h"

namespace music3::bench {

struct ProviderToggle {
  std::string name;
  bool enabled;
};

// The spec without its provider suffixes, and the toggles they ask for (empty when there are none).
std::pair<std::string, std::vector<ProviderToggle>> split_provider_set(const std::string& spec);

class ProviderSetArm : public Arm {
 public:
  ProviderSetArm(std::string spec, std::vector<ProviderToggle> toggles,
                 const std::function<std::unique_ptr<Arm>()>& make_inner);
  std::vector<double> run_repetition(int warmup, int frames) override;
  nlohmann::json describe() const override;
  std::string gated_binary() const override { return inner_->gated_binary(); }

 private:
  std::string spec_;
  std::vector<ProviderToggle> toggles_;
  std::unique_ptr<Arm> inner_;
};

}  // namespace music3::bench
