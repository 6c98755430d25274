// Old-style torch weight norm, folded once at load with upstream's f32 formula.
// Contract: v is [d0][d1][k] bf16; g holds one bf16 per index of dimension `norm_dim` (0, or 1 for callers that
// keep a different axis). For every index a of that dimension, ||v_a|| is the f32 square root of the sum of
// squares over the other two dimensions, and w = bf16(v * (g_a / ||v_a||)), every product in f32: exactly
// torch._weight_norm on bf16 tensors. Throws std::runtime_error naming `what` when g's size differs from the
// kept dimension or a slice of v is all zeros (the norm would divide by zero).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

#include "engine/core/bf16.h"

namespace music3::vocoder {

std::vector<bf16> fold_weight_norm(const std::vector<bf16>& g, const std::vector<bf16>& v, int64_t d0, int64_t d1,
                                   int64_t k, int norm_dim, const std::string& what);

}  // namespace music3::vocoder
