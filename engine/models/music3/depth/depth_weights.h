// The depth decoder's weights on the host, in bf16 (never f32 holders of bf16
// values: that would double the bytes every sweep moves): views into the mapped
// checkpoint, or owned storage for synthetic weights and F32-converted tensors.
// Contract: every tensor is row-major [out, in] as diffusers stores it; named()
// lists the 47 (for 4 layers) diffusers tensor names with their shapes, in the
// order a checkpoint is validated; bytes() is the total bf16 storage.
// Thread-safety: const use is thread-safe.
#pragma once
#include <string>
#include <vector>

#include "engine/core/bf16.h"
#include "engine/core/tensor.h"
#include "engine/models/music3/depth/depth_config.h"
#include "engine/runtime/host_tensor.h"

namespace music3::depth {

using runtime::HostTensor;

struct DepthLayerWeights {
  HostTensor input_norm, post_norm;  // [H]
  HostTensor wq, wk, wv, wo;         // [H, H]
  HostTensor w_gate, w_up;           // [I, H]
  HostTensor w_down;                 // [H, I]
};

struct TensorSpec {
  std::string name;
  Shape shape;
};

struct DepthWeights {
  DepthConfig cfg;
  HostTensor audio_embeddings;  // [(codebooks-1)*vocab, H]
  HostTensor projection;        // [H, H]
  HostTensor pos_embedding;     // [max_positions, H]
  HostTensor norm;              // [H]
  std::vector<HostTensor> heads;  // steps() x [vocab, H]
  std::vector<DepthLayerWeights> layers;

  size_t bytes() const;
  // The diffusers name and shape of every tensor, paired with where it lives here.
  std::vector<std::pair<TensorSpec, HostTensor*>> named();
  static std::vector<TensorSpec> expected_tensors(const DepthConfig& cfg);
  static DepthWeights allocate(const DepthConfig& cfg);  // every tensor owned, zero-filled
  static DepthWeights shapes(const DepthConfig& cfg);    // every tensor shaped, no storage yet
};

}  // namespace music3::depth
