// Loads `rvq_depth_decoder/` exactly as diffusers writes it: config.json plus
// diffusion_pytorch_model.safetensors with the real tensor names.
// Contract: bf16 tensors are copied as they are; f32 tensors are rounded to bf16
// (nearest, ties to even) and listed in LoadReport::converted. Anything else is
// refused with an error naming the file and tensor: a missing or unexpected
// tensor, a wrong shape, an unsupported dtype, a non-finite value.
#pragma once
#include <string>
#include <vector>

#include "engine/models/music3/depth/depth_weights.h"

namespace music3::depth {

struct LoadReport {
  std::string weights_path;
  std::string weights_sha256;
  std::vector<std::string> converted;  // tensors stored as F32 and rounded to bf16
  size_t bytes_read = 0;
};

// `dir` is the component folder (holding config.json) or a pipeline root that
// has a rvq_depth_decoder/ subfolder.
DepthWeights load_depth_checkpoint(const std::string& dir, LoadReport* report = nullptr);

}  // namespace music3::depth
