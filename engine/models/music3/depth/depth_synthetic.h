// Seeded synthetic weights at any geometry (the full one on the GPU box, where no
// checkpoint is carried). Contract: the same (config, seed) gives the same bits on
// every machine and thread count; scales follow the oracle bridge's draws (linear
// N(0,1/fan_in), embeddings N(0,1), norms 1 + 0.1 N(0,1)), so activations and
// logits have realistic magnitudes and top-50 sampling is exercised.
#pragma once
#include <cstdint>

#include "engine/models/music3/depth/depth_weights.h"

namespace music3::depth {

DepthWeights synthetic_depth_weights(const DepthConfig& cfg, uint64_t seed, int threads = 0);

// Seeded per-frame inputs: last_hidden [2,H] (rows differ) and c0_embedding [H].
void synthetic_frame_inputs(const DepthConfig& cfg, uint64_t seed, uint64_t frame, bf16* last_hidden,
                            bf16* c0_embedding);

}  // namespace music3::depth
