#include "gates/pipeline/pipeline_oracle.h"

#include <cstdlib>
#include <nlohmann/json.hpp>

#include "gates/lib/oracle_paths.h"

namespace music3::gates {

std::string pipeline_oracle_dir() {
  const char* v = std::getenv("MUSIC3_PIPELINE_ORACLE_DIR");
  return v && *v ? v : MUSIC3_DEFAULT_PIPELINE_ORACLE_DIR;
}

std::vector<PipelineCase> pipeline_cases() {
  std::vector<PipelineCase> cases;
  for (const auto& c : oracle_manifest("pipeline").at("cases"))
    cases.push_back({c.at(0).get<std::string>(), c.at(1).get<std::string>()});
  return cases;
}

std::vector<std::string> early_eos_cases() {
  return oracle_manifest("pipeline").at("early_eos").get<std::vector<std::string>>();
}

std::string pipeline_folder(const std::string& geometry) { return pipeline_oracle_dir() + "/pipelines/" + geometry; }

std::string embedded_pipeline_folder() {
  return pipeline_folder(oracle_manifest("pipeline").at("embedded").get<std::string>());
}

std::string pipeline_trace_path(const PipelineCase& c) {
  return pipeline_oracle_dir() + "/traces/" + c.name + ".safetensors";
}

}  // namespace music3::gates
