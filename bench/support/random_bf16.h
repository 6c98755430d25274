// Seeded random bf16 data for the benches: values uniform in [-scale, scale), never
// all zeros (zeros can run faster than real data and hide unwritten outputs).
// Contract: the same (count, seed, scale) gives the same bits on every machine.
#pragma once
#include <cstdint>
#include <vector>

#include "engine/core/bf16.h"

namespace music3::bench {

std::vector<bf16> random_bf16(size_t count, uint64_t seed, float scale = 1.0f);

}  // namespace music3::bench
