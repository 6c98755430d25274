// Where a component's oracle material lives, as every component's gates see it.
// Paths: MUSIC3_SOURCE_DIR (source tree) and MUSIC3_ORACLE_DIR (the bridge's
// regenerated checkpoints) from the environment, defaulting to the configure-time
// locations. Each component's committed goldens and manifest sit in
// oracle_bridge/goldens/<component>/.
// Contract: oracle_manifest() parses <goldens_dir(component)>/manifest.json once per
// component and throws naming the path when it cannot. Thread-safe.
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace music3::gates {

std::string source_dir();
std::string oracle_dir();
std::string goldens_dir(const std::string& component);
const nlohmann::json& oracle_manifest(const std::string& component);

}  // namespace music3::gates
