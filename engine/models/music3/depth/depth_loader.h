// Loads `rvq_depth_decoder/` exactly as diffusers writes it: config.json plus
// diffusion_pytorch_model.safetensors (or its shards and
// diffusion_pytorch_model.safetensors.index.json) with the real tensor names.
// Contract: bf16 tensors are not copied: the weights view the mapped file, which
// stays mapped while the weights live (a tensor the file lays out unaligned is
// copied); f32 tensors are rounded to bf16 (nearest, ties to even) and listed in
// LoadReport::converted. Anything else is refused with an error naming the file and
// tensor: a missing or unexpected tensor, a wrong shape, an unsupported dtype, a
// non-finite value, and every shard-set refusal of io/safetensors_set.h.
// Thread-safety: no shared state; concurrent loads are safe.
#pragma once
#include <string>
#include <vector>

#include "engine/models/music3/depth/depth_weights.h"

namespace music3::depth {

struct LoadReport {
  std::string weights_path;    // the single file, or the index of a sharded set
  std::string weights_sha256;  // of that file
  std::vector<std::string> converted;  // tensors stored as F32 and rounded to bf16
  size_t bytes_read = 0;
};

// `dir` is the component folder (holding config.json) or a pipeline root that
// has a rvq_depth_decoder/ subfolder.
DepthWeights load_depth_checkpoint(const std::string& dir, LoadReport* report = nullptr);

}  // namespace music3::depth
