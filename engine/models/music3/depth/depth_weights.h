// Host-resident weights of the depth decoder, in bf16 storage (never f32 holders
// of bf16 values: that would double the bytes every sweep moves).
// Contract: every tensor is row-major [out, in] as diffusers stores it; names()
// lists the 47 (for 4 layers) diffusers tensor names with their shapes, in the
// order a checkpoint is validated; bytes() is the total bf16 storage.
#pragma once
#include <string>
#include <vector>

#include "engine/core/bf16.h"
#include "engine/core/tensor.h"
#include "engine/models/music3/depth/depth_config.h"

namespace music3::depth {

struct HostTensor {
  Shape shape;
  std::vector<bf16> data;

  HostTensor() = default;
  explicit HostTensor(Shape s) : shape(s), data(static_cast<size_t>(s.numel())) {}
  const bf16* ptr() const { return data.data(); }
  bf16* ptr() { return data.data(); }
  Tensor view() const { return Tensor{const_cast<bf16*>(data.data()), DType::BF16, shape, DeviceType::CPU}; }
  size_t bytes() const { return data.size() * sizeof(bf16); }
};

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
  static DepthWeights allocate(const DepthConfig& cfg);
};

}  // namespace music3::depth
