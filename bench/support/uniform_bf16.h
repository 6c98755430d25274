// Seeded uniform bf16 data for the benches: values uniform in [-scale, scale), never
// all zeros (zeros can run faster than real data and hide unwritten outputs), drawn
// from the engine's counter-based generator (engine/core/counter_rng.h).
// Contract: the same (count, seed, scale) gives the same bits on every machine. Thread-safe.
#pragma once
#include <cstdint>
#include <vector>

#include "engine/core/bf16.h"

namespace music3::bench {

std::vector<bf16> uniform_bf16(size_t count, uint64_t seed, float scale = 1.0f);

// The same values written in place into out[0, count) (a buffer the caller owns, e.g. a
// multi-GB host tensor that must not be built twice).
void fill_uniform_bf16(bf16* out, size_t count, uint64_t seed, float scale = 1.0f);

}  // namespace music3::bench
