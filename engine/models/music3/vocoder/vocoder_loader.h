// Loads `vocoder/` exactly as diffusers' save_pretrained writes it: config.json plus
// diffusion_pytorch_model.safetensors with old-style weight norm (weight_g / weight_v pairs).
// Contract: bf16 tensors are taken as they are, f32 tensors rounded to bf16 first (as torch_dtype=bf16 loads
// them); each weight_g / weight_v pair is folded once (weight_norm.h: norm over every dim but 0, which is the
// output channel of a Conv1d and the input channel of a ConvTranspose1d). Refused, with an error naming the file
// and the tensor: a weight_g without its weight_v (or the reverse), a missing or unexpected tensor, a wrong
// shape (a wrong kernel size is named as such), an unsupported dtype, a non-finite value, an all-zero weight_v
// slice. The returned weights are immutable; the function itself keeps no state (thread-safe).
#pragma once
#include <string>

#include "engine/models/music3/vocoder/vocoder_weights.h"

namespace music3::vocoder {

struct LoadReport {
  std::string weights_path;
  std::string weights_sha256;
  size_t tensors = 0;
  size_t folded = 0;  // weight-norm pairs folded
};

// `dir` is the component folder (holding config.json) or a pipeline root with a vocoder/ subfolder.
VocoderWeights load_vocoder_checkpoint(const std::string& dir, LoadReport* report = nullptr);

}  // namespace music3::vocoder
