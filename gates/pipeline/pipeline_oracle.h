// The pipeline oracle as the gates see it: the tiny pipeline folders and the songs' traces that the ctest fixture
// `pipeline_oracle` regenerates (oracle_bridge/pipeline/generate.py, every byte checked against
// oracle_bridge/goldens/pipeline/manifest.json).
// Paths: MUSIC3_PIPELINE_ORACLE_DIR from the environment, defaulting to the configure-time build/pipeline_oracle.
// Contract: pipeline_cases() lists the manifest's cases; the folder of a geometry and the trace of a case are
// returned as paths (not checked: the readers refuse a missing file by name). Thread-safe.
#pragma once
#include <string>
#include <vector>

namespace music3::gates {

struct PipelineCase {
  std::string name, geometry;
};

std::string pipeline_oracle_dir();
std::vector<PipelineCase> pipeline_cases();
std::vector<std::string> early_eos_cases();  // the manifest's songs that must end on <|audio_end|> early
std::string pipeline_folder(const std::string& geometry);
std::string embedded_pipeline_folder();  // the geometry scripts/run ships
std::string pipeline_trace_path(const PipelineCase& c);

}  // namespace music3::gates
