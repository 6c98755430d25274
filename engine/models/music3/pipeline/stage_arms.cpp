#include "engine/models/music3/pipeline/stage_arms.h"

#include <array>
#include <set>
#include <stdexcept>
#include <utility>

namespace music3::pipeline {

namespace {

std::string request_name(runtime::ArmRequest r) {
  switch (r) {
    case runtime::ArmRequest::Host: return "host";
    case runtime::ArmRequest::Device: return "device";
    case runtime::ArmRequest::Auto: break;
  }
  return "auto";
}

std::array<std::pair<const char*, runtime::ArmRequest*>, 4> stages(StageArms& a) {
  return {{{"lm", &a.lm}, {"depth", &a.depth}, {"acoustic", &a.acoustic}, {"vocoder", &a.vocoder}}};
}

}  // namespace

std::string StageArms::describe() const {
  std::string out = "lm=";
  out.append(request_name(lm)).append(",depth=").append(request_name(depth));
  out.append(",acoustic=").append(request_name(acoustic)).append(",vocoder=").append(request_name(vocoder));
  return out;
}

StageArms parse_stage_arms(const std::string& spec) {
  StageArms arms;
  if (spec.find('=') == std::string::npos) {
    const runtime::ArmRequest all = runtime::arm_request_from_name(spec);
    for (auto& stage : stages(arms)) *stage.second = all;
    return arms;
  }
  std::set<std::string> named;
  size_t begin = 0;
  while (begin <= spec.size()) {
    const size_t end = std::min(spec.find(',', begin), spec.size());
    const std::string item = spec.substr(begin, end - begin);
    const size_t eq = item.find('=');
    if (eq == std::string::npos || eq == 0)
      throw std::invalid_argument("'" + item + "' is not STAGE=REQUEST (stages: lm, depth, acoustic, vocoder)");
    const std::string stage = item.substr(0, eq);
    runtime::ArmRequest* target = nullptr;
    for (auto& [name, request] : stages(arms))
      if (stage == name) target = request;
    if (!target) throw std::invalid_argument("unknown stage '" + stage + "' (stages: lm, depth, acoustic, vocoder)");
    if (!named.insert(stage).second) throw std::invalid_argument("stage '" + stage + "' is named twice");
    *target = runtime::arm_request_from_name(item.substr(eq + 1));
    begin = end + 1;
  }
  return arms;
}

}  // namespace music3::pipeline
