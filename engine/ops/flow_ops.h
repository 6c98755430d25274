// Op entry point of the flow-matching sampler's update: the guided Euler step of the acoustic stage, run where the
// DiT's velocities are (the device loop of engine/models/music3/acoustic/dit_device_arm.h), so the latents stay on
// the device across a window's steps. Every tensor lives on the queue's device and is bf16; the entry point
// validates ranks, shapes and aliasing and throws std::invalid_argument naming the op and argument before any
// provider runs.
//
// Numerics (every provider, bit for bit; flow_math.h):
//  guided_euler  x[r, c] = euler_update( x[r, c], guided_velocity( pair[2 r, c], pair[2 r + 1, c], scale ),
//                round_bf16(dt) ) for x [R, C] and pair [2 R, C] (row 2 r the conditional branch, row 2 r + 1 the
//                unconditional one: the DiT device arm's [token][branch] rows); x is updated in place
// Thread-safety: as ops.h.
#pragma once
#include "engine/core/queue.h"
#include "engine/core/tensor.h"

namespace music3::ops {

struct GuidedEulerArgs {
  Tensor pair, x;
  float scale, dt;
};

void guided_euler(const Queue& q, const Tensor& pair, const Tensor& x, float scale, float dt);

}  // namespace music3::ops
