// Loads `transformer/` as diffusers' save_pretrained writes it: config.json plus
// diffusion_pytorch_model.safetensors.index.json and its shards (the release: two shards, f32), or one
// diffusion_pytorch_model.safetensors.
// Contract: every tensor goes through TensorReader (acoustic_tensor_reader.h: f32 rounded to bf16 once, at load;
// missing, unexpected, wrong shape, wrong dtype and non-finite tensors refused by name); shards and indexes are
// checked by io::SafetensorsSet (truncated shard, a shard holding tensors the index does not map to it, a tensor
// mapped to a shard that lacks it). `dir` is the component folder or a pipeline root holding transformer/.
// Keeps no state (thread-safe); the weights it returns are immutable.
#pragma once
#include <string>

#include "engine/models/music3/acoustic/dit_weights.h"

namespace music3::acoustic {

DitWeights load_dit(const std::string& dir, AcousticLoadReport* report = nullptr);

}  // namespace music3::acoustic
