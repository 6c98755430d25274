// The DiT's weights, bf16 host tensors with the diffusers names and shapes (Linear [out, in]; 1x1 Conv1d
// [out, in, 1]).
// Contract: dit_tensors(cfg) lists every tensor of transformer/ in load order; dit_block_prefix(i) is
// "transformer_blocks.<i>.". Immutable after load: safe to read from any number of threads.
#pragma once
#include <string>
#include <vector>

#include "engine/models/music3/acoustic/acoustic_tensor_reader.h"
#include "engine/models/music3/acoustic/dit_config.h"

namespace music3::acoustic {

struct DitBlockWeights {
  HostTensor norm1_w, norm1_b;    // [inner]
  HostTensor wq, wk, wv, wo;      // [inner, inner]
  HostTensor norm2_w, norm2_b;    // [inner]
  HostTensor ff_in_w, ff_in_b;    // [2 ff_inner, inner], [2 ff_inner]
  HostTensor ff_out_w, ff_out_b;  // [inner, ff_inner], [inner]
};

struct DitWeights {
  DitConfig cfg;
  HostTensor time_proj;       // [fourier/2, 1]
  HostTensor lin1_w, lin1_b;  // time_embed.linear_1: [inner, fourier], [inner]
  HostTensor lin2_w, lin2_b;  // time_embed.linear_2: [inner, inner], [inner]
  HostTensor pre_conv;        // preprocess_conv.weight [concat, concat, 1]
  HostTensor proj_in;         // [inner, concat]
  std::vector<DitBlockWeights> blocks;
  HostTensor proj_out;   // [in_channels, inner]
  HostTensor post_conv;  // postprocess_conv.weight [in_channels, in_channels, 1]

  size_t bytes() const;
};

std::string dit_block_prefix(int i);
std::vector<TensorSpec> dit_tensors(const DitConfig& cfg);

}  // namespace music3::acoustic
