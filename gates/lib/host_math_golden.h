// The host math unit gates' known answers (oracle_bridge/goldens/host_math/, written by
// oracle_bridge/host_math/generate.py with torch and transformers): one safetensors file per component.
// Contract: golden_bf16/golden_f32 copy a tensor out (BF16 / F32, any shape) or throw naming the file and tensor;
// expect_matches() scores a candidate against a reference with ulp_stats and fails the running gtest when the
// worst ULP exceeds `max_ulp` or a zero reference is missed by more than `max_zero` ULPs of the row RMS, printing
// the summary either way. Thread-safety: no shared state.
#pragma once
#include <string>
#include <vector>

#include "engine/core/bf16.h"
#include "engine/io/safetensors.h"

namespace music3::gates {

io::SafetensorsFile host_math_golden(const std::string& component);  // "lm", "dit", "vocoder" or "depth"
std::vector<bf16> golden_bf16(const io::SafetensorsFile& f, const std::string& name);
std::vector<float> golden_f32(const io::SafetensorsFile& f, const std::string& name);
void expect_matches(const std::string& what, const std::vector<bf16>& candidate, const std::vector<bf16>& reference,
                    double max_ulp, double max_zero);

}  // namespace music3::gates
