// The condition encoder's weights, bf16 host tensors with the diffusers names and shapes.
// Contract: expected_tensors(cfg) lists every tensor of condition_encoder/diffusion_pytorch_model.safetensors:
// layer_weight_logits [layers], layer_scale [1], proj.weight [out_dim, hidden, 3] (torch's Conv1d layout
// [out][in][tap]), proj.bias [out_dim]. Immutable after load: safe to read from any number of threads.
#pragma once
#include <vector>

#include "engine/models/music3/acoustic/acoustic_tensor_reader.h"
#include "engine/models/music3/acoustic/condition_encoder_config.h"

namespace music3::acoustic {

struct ConditionEncoderWeights {
  ConditionEncoderConfig cfg;
  HostTensor logits;  // layer_weight_logits [layers]
  HostTensor scale;   // layer_scale [1]
  HostTensor proj_w;  // [out_dim, hidden, 3]
  HostTensor proj_b;  // [out_dim]

  size_t bytes() const { return logits.bytes() + scale.bytes() + proj_w.bytes() + proj_b.bytes(); }
};

std::vector<TensorSpec> condition_encoder_tensors(const ConditionEncoderConfig& cfg);

}  // namespace music3::acoustic
