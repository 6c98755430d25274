// The per-element arithmetic of the acoustic stage's guided Euler step, shared by the host loop
// (engine/models/music3/acoustic: guide(), euler_step()) and every guided_euler provider (flow_ops.h), so the
// host loop and the device loop give the same bits.
// Contract, diffusers' ClassifierFreeGuidance then FlowMatchEulerDiscreteScheduler.step on bf16 tensors, every op
// rounded to bf16 as torch rounds it:
//   guided_velocity(c, u, scale) = bf16( u + bf16( scale * bf16(c - u) ) )
//   euler_update(x, v, dt_bf16)  = bf16( x + bf16( dt_bf16 * v ) ), dt_bf16 = round_bf16(dt) (the scheduler's f32
//                                  dt meets a bf16 tensor, so torch rounds it to bf16 first)
// Each is a fixed sequence of IEEE f32 operations, one rounding to bf16 after each (host code is built with
// -ffp-contract=off and device code with --fmad=false, so no product is fused into an add).
// Thread-safety: pure functions.
#pragma once
#include "engine/core/bf16.h"

namespace music3::flow {

MUSIC3_HD float guided_velocity(float c, float u, float scale) {
  const float shift = round_bf16(c - u);
  const float scaled = round_bf16(scale * shift);
  return round_bf16(u + scaled);
}

MUSIC3_HD float euler_update(float x, float v, float dt_bf16) { return round_bf16(x + round_bf16(dt_bf16 * v)); }

}  // namespace music3::flow
