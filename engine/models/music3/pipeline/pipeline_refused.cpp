#include "engine/models/music3/pipeline/pipeline_refused.h"

namespace music3::pipeline {

PipelineRefused::PipelineRefused(const std::string& root, std::string component, std::string rule,
                                 const std::string& detail)
    : std::runtime_error("pipeline checkpoint " + root + ": " + component + " refused (" + rule + "): " + detail),
      component_(std::move(component)),
      rule_(std::move(rule)) {}

}  // namespace music3::pipeline
