// Classifier-free guidance of the DiT's two branches, as diffusers' ClassifierFreeGuidance(guidance_scale=1.7)
// computes it on bf16 tensors: v = v_u + 1.7 * (v_c - v_u), each op rounded to bf16 (the shift, the scaled shift
// with the scale as an f32 scalar, the sum).
// Contract: guide(cond, uncond, out, n) writes n guided velocities; out may alias either input. Thread-safe.
#pragma once
#include <cstdint>

#include "engine/core/bf16.h"

namespace music3::acoustic {

inline constexpr float kGuidanceScale = 1.7f;

void guide(const bf16* cond, const bf16* uncond, bf16* out, int64_t n);

}  // namespace music3::acoustic
