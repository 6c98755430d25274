// Synthetic weights and byte counts for bench-lm.
// Contract: synthetic_lm_weights(cfg, seed) returns LmWeights of geometry cfg with seeded
// uniform bf16 matrices (scale 0.02) and unit norm weights; every layer views the same
// host storage (one layer's worth of host memory, kept alive by the views) while the
// device arm stages each layer into its own device buffers, so the device reads every
// layer's bytes; the embedding table is empty (the decode step never reads it).
// step_bytes(cfg, kv) is what one decode step plus the sliced head must read: every
// layer's staged weights, the final norm, the sliced head and both rows' K/V prefix of
// kv positions, with the activations left out. lm_bench_geometry(name): "full" (the
// release geometry) or "small" (hidden 256, 2 layers: the CPU smoke run).
// Thread-safety: pure functions.
#pragma once
#include <cstdint>
#include <string>

#include "engine/models/music3/lm/lm_weights.h"

namespace music3::bench {

lm::LmConfig lm_bench_geometry(const std::string& name);
lm::LmWeights synthetic_lm_weights(const lm::LmConfig& cfg, uint64_t seed);
double step_bytes(const lm::LmConfig& cfg, int kv);

}  // namespace music3::bench
