// Seeded synthetic vocoder weights at a named geometry, for benches and the CLI-free A/B arm.
// Contract: synthetic_vocoder_weights(cfg, seed) returns folded weights shaped as a checkpoint of `cfg` would
// load (every conv weight scaled to a unit-norm output row times exp(0.25 N) as the oracle draws them, Snake
// alphas exp(0.5 N), biases 0.1 N), from a splitmix64 stream of `seed`; the same (cfg, seed) gives the same bits
// on every machine. vocoder_geometry(name): "full" (the release), "mid" (a quarter of every width), "tiny"
// (the oracle's narrow geometry); throws std::invalid_argument naming an unknown name. synthetic_latents()
// fills [C][L] bf16 latents ~ N(0, 1). Pure functions (thread-safe).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "engine/models/music3/vocoder/vocoder_weights.h"

namespace music3::vocoder {

VocoderConfig vocoder_geometry(const std::string& name);
VocoderWeights synthetic_vocoder_weights(const VocoderConfig& cfg, uint64_t seed);
std::vector<bf16> synthetic_latents(const VocoderConfig& cfg, int64_t length, uint64_t seed);

}  // namespace music3::vocoder
