#include "engine/models/music3/pipeline/pipeline_layout.h"

#include <fstream>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "engine/models/music3/pipeline/pipeline_refused.h"

namespace music3::pipeline {
namespace fs = std::filesystem;

namespace {

nlohmann::json read_index(const fs::path& root) {
  const std::string index_name(kIndexFile);
  std::ifstream in(root / kIndexFile);
  if (!in) throw PipelineRefused(root.string(), index_name, "index_unreadable", "the file is missing or unreadable");
  nlohmann::json j = nlohmann::json::parse(in, nullptr, /*allow_exceptions=*/false);
  if (!j.is_object())
    throw PipelineRefused(root.string(), index_name, "index_unreadable", "not a JSON object");
  const auto cls = j.find("_class_name");
  if (cls == j.end() || !cls->is_string() || cls->get<std::string>() != kPipelineClass)
    throw PipelineRefused(root.string(), index_name, "index_class",
                          "_class_name is " + (cls == j.end() ? std::string("absent") : cls->dump()) + ", expected " +
                              std::string(kPipelineClass));
  return j;
}

// The files a component's loader needs; each inner list is satisfied by any one of its names.
std::vector<std::vector<std::string>> needed_files(std::string_view component) {
  if (component == "tokenizer") return {{"tokenizer.json"}, {"tokenizer_config.json"}};
  if (component == "scheduler") return {{"scheduler_config.json"}};
  if (component == "language_model") return {{"config.json"}, {"model.safetensors", "model.safetensors.index.json"}};
  return {{"config.json"}, {"diffusion_pytorch_model.safetensors", "diffusion_pytorch_model.safetensors.index.json"}};
}

}  // namespace

void check_layout(const fs::path& root) {
  const nlohmann::json index = read_index(root);
  for (const ComponentSpec& c : kComponents) {
    const std::string name(c.name);
    const nlohmann::json entry = index.value(name, nlohmann::json());
    if (entry.is_null())
      throw PipelineRefused(root.string(), name, "index_entry", "modular_model_index.json has no entry for it");
    if (!entry.is_array() || entry.size() != 3 || !entry[0].is_string() || !entry[1].is_string())
      throw PipelineRefused(root.string(), name, "index_class",
                            "its index entry is " + entry.dump() + ", expected [library, class, loading spec]");
    if (entry[0].get<std::string>() != c.library || entry[1].get<std::string>() != c.cls)
      throw PipelineRefused(root.string(), name, "index_class",
                            "the index names " + entry[0].dump() + " " + entry[1].dump() + ", expected \"" +
                                std::string(c.library) + "\" \"" + std::string(c.cls) + "\"");
    const fs::path dir = root / c.name;
    if (!fs::is_directory(dir))
      throw PipelineRefused(root.string(), name, "folder_missing", "no folder " + dir.string());
    for (const auto& alternatives : needed_files(c.name)) {
      bool found = false;
      for (const auto& file : alternatives) found = found || fs::is_regular_file(dir / file);
      if (!found) {
        std::string names;
        for (const auto& file : alternatives) names += (names.empty() ? "" : " or ") + file;
        throw PipelineRefused(root.string(), name, "file_missing", "no " + names + " in " + dir.string());
      }
    }
  }
}

}  // namespace music3::pipeline
