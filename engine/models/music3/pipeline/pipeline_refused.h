// The one error a pipeline checkpoint folder is refused with: names the component (a folder of the hub
// layout, or "modular_model_index.json") and the rule it breaks, so a caller and a gate can tell which check
// fired. what() reads "pipeline checkpoint ROOT: COMPONENT refused (RULE): DETAIL".
// Thread-safety: an immutable value.
#pragma once
#include <stdexcept>
#include <string>

namespace music3::pipeline {

class PipelineRefused : public std::runtime_error {
 public:
  PipelineRefused(const std::string& root, std::string component, std::string rule, const std::string& detail);
  const std::string& component() const { return component_; }
  const std::string& rule() const { return rule_; }

 private:
  std::string component_, rule_;
};

}  // namespace music3::pipeline
