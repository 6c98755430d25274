// The diffusers hub layout of a MiniMax-Music3 pipeline: modular_model_index.json and the seven component
// folders, each with the files its loader needs.
// Contract: check_layout(root) refuses (PipelineRefused) before any component is read:
//  - "modular_model_index.json": missing or not a JSON object (rule index_unreadable); _class_name other than
//    MiniMaxMusic3ModularPipeline (index_class);
//  - a component: absent from the index (index_entry), its entry not [library, class, spec] or naming another
//    class than the one the engine reads (index_class), its folder missing (folder_missing), or a file its
//    loader needs missing (file_missing): config.json plus the weights (a single safetensors file or the
//    sharded set's index) for the five models, tokenizer.json and tokenizer_config.json for the tokenizer,
//    scheduler_config.json for the scheduler.
// kComponents lists the components in the order the pipeline uses them. Thread-safety: pure functions.
#pragma once
#include <array>
#include <filesystem>
#include <string_view>

namespace music3::pipeline {

struct ComponentSpec {
  std::string_view name;     // the folder and the index key
  std::string_view library;  // "transformers" or "diffusers"
  std::string_view cls;      // the class the index must name
};

inline constexpr std::array<ComponentSpec, 7> kComponents = {{
    {"tokenizer", "transformers", "Qwen2Tokenizer"},
    {"language_model", "transformers", "Qwen3ForCausalLM"},
    {"rvq_depth_decoder", "diffusers", "MiniMaxMusic3RVQDepthDecoder"},
    {"condition_encoder", "diffusers", "MiniMaxMusic3ConditionEncoder"},
    {"transformer", "diffusers", "MiniMaxMusic3Transformer1DModel"},
    {"scheduler", "diffusers", "FlowMatchEulerDiscreteScheduler"},
    {"vocoder", "diffusers", "MiniMaxMusic3Vocoder"},
}};

inline constexpr std::string_view kIndexFile = "modular_model_index.json";
inline constexpr std::string_view kPipelineClass = "MiniMaxMusic3ModularPipeline";

void check_layout(const std::filesystem::path& root);

}  // namespace music3::pipeline
