// Seeded synthetic weights and inputs for the acoustic stage, for benches and loop tests without a checkpoint.
// Contract: dit_geometry(name) / condition_encoder_geometry(name): "full" (the release), "mid" (4 layers of the
// release's widths for the DiT; hidden 1024 for the encoder), "tiny" (upstream's test geometry); throws
// std::invalid_argument naming an unknown name. synthetic_dit_weights(cfg, seed) fills every tensor from a
// splitmix64 stream of `seed` (Linear and conv weights N(0, 1/in), biases 0.02 N, LayerNorm weights 1 + 0.1 N and
// biases 0.1 N, time_proj N(0, 1)); synthetic_condition_encoder_weights(cfg, seed) likewise (logits N(0, 1),
// layer_scale 1 + 0.1 N). synthetic_normal(count, seed) is N(0, 1) in bf16. The same (cfg, seed) gives the same
// bits on every machine. Pure functions (thread-safe).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "engine/models/music3/acoustic/condition_encoder_weights.h"
#include "engine/models/music3/acoustic/dit_weights.h"

namespace music3::acoustic {

DitConfig dit_geometry(const std::string& name);
ConditionEncoderConfig condition_encoder_geometry(const std::string& name);
DitWeights synthetic_dit_weights(const DitConfig& cfg, uint64_t seed);
ConditionEncoderWeights synthetic_condition_encoder_weights(const ConditionEncoderConfig& cfg, uint64_t seed);
std::vector<bf16> synthetic_normal(size_t count, uint64_t seed);

}  // namespace music3::acoustic
