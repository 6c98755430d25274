// Numerics for the op tests: an f64 -> bf16 rounding with a single rounding (the
// reference side of every comparison), deterministic random inputs, bit views for
// exact comparisons, and the report of a ULP comparison. The ULP metric itself is the
// gates' one (gates/lib/ulp_stats.h).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/bf16.h"
#include "gates/lib/ulp_stats.h"

namespace music3::optest {

bf16 bf16_from_f64(double v);  // round to nearest even, once, from the exact f64 value

// Prints "[ulp] <what>: <summary>" and records it as a property of the running test
// (in --gtest_output=xml reports), so measured figures travel with every run.
void report(const std::string& what, const gates::UlpStats& s);

// Normal(0, stddev) test data from std::mt19937_64 (the op gates' bounds were measured
// on exactly these draws; the engine's own generator is engine/core/counter_rng.h).
std::vector<bf16> normal_bf16(size_t n, uint64_t seed, double stddev);
std::vector<float> normal_f32(size_t n, uint64_t seed, double stddev);
std::vector<uint16_t> bits(const std::vector<bf16>& v);
std::vector<uint32_t> bits(const std::vector<float>& v);

}  // namespace music3::optest
