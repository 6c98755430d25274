// Loads `condition_encoder/` as diffusers' save_pretrained writes it: config.json plus
// diffusion_pytorch_model.safetensors (or shards with its .index.json).
// Contract: every tensor goes through TensorReader (acoustic_tensor_reader.h: the f32 -> bf16 cast point and the
// named refusals: missing, unexpected, wrong shape, wrong dtype, non-finite; truncated files and lying indexes
// through io::SafetensorsSet). `dir` is the component folder or a pipeline root holding condition_encoder/. The
// function keeps no state (thread-safe); the weights it returns are immutable.
#pragma once
#include <string>

#include "engine/models/music3/acoustic/condition_encoder_weights.h"

namespace music3::acoustic {

ConditionEncoderWeights load_condition_encoder(const std::string& dir, AcousticLoadReport* report = nullptr);

}  // namespace music3::acoustic
