// The flow-matching schedule and Euler update of the acoustic stage, as diffusers' FlowMatchEulerDiscreteScheduler
// (num_train_timesteps 1, shift 1, invert_sigmas) runs for MiniMaxMusic3ChunkSetTimestepsStep and
// MiniMaxMusic3ChunkDenoiseInner. Time runs from 0 (noise) to 1 (data).
// Contract:
// - flow_sigmas(N) is bit-exact to upstream: s = f32(numpy's f64 linspace(1, 1/N, N)), i.e. y_i = i*step + 1
//   (two f64 roundings, step = (1/N - 1)/(N - 1)) with the last element set to exactly 1/N; sigma_i = 1 - s_i in
//   f32; then 1.0 is appended (N + 1 values). N < 1 throws std::invalid_argument.
// - timestep(sigmas, i) is the timestep the DiT and the overlap blend see: bf16(sigma_i).
// - euler_step(x, v, n, dt) is x <- bf16(f32(x) + f32(bf16(bf16(dt) * v))) per element, dt = sigma_{i+1} - sigma_i
//   in f32: the 0-dim f32 dt meets the bf16 velocity and is rounded to bf16 before the multiply (a 0-dim tensor
//   does not promote a bf16 tensor), the product is rounded, the sample is upcast to f32 for the add and the sum
//   is cast back to bf16.
// Pure functions: thread-safe.
#pragma once
#include <cstdint>
#include <vector>

#include "engine/core/bf16.h"

namespace music3::acoustic {

std::vector<float> flow_sigmas(int steps);
bf16 timestep(const std::vector<float>& sigmas, int step);
float euler_dt(const std::vector<float>& sigmas, int step);
void euler_step(bf16* x, const bf16* v, int64_t n, float dt);

}  // namespace music3::acoustic
