// Loads a transformers Qwen3ForCausalLM checkpoint folder (the pipeline's
// language_model/: config.json plus model.safetensors, or model-*-of-*.safetensors with
// model.safetensors.index.json) into LmWeights.
// Contract: `dir` is the component folder or a pipeline folder holding
// language_model/. Refusals throw std::runtime_error naming the file and the problem:
// the config's (lm_config.h); any shard's or the index's (io::SafetensorsSet: truncated,
// lying header, tensor mapped to the wrong shard, ...); a missing or unexpected tensor;
// a shape or dtype (BF16, or F32 rounded to bf16) that differs; a non-finite value in a
// tensor the engine reads (every tensor, and of lm_head the sampled rows only).
// Thread-safety: a free function with no shared state.
#pragma once
#include <string>
#include <vector>

#include "engine/models/music3/lm/lm_weights.h"

namespace music3::lm {

struct LmLoadReport {
  std::string index_path;  // the index, or the single file
  std::string sha256;      // of that file
  size_t shards = 0;
  std::vector<std::string> converted;  // tensors stored F32
};

LmWeights load_lm_checkpoint(const std::string& dir, LmLoadReport* report = nullptr);

}  // namespace music3::lm
