// The measurement control for the host arm's storage choice (issue: "bf16 storage is
// >= 1.7x faster than an f32-container variant of the same arm"). It is host::linear's
// sweep with the same values held in f32 containers: 4 bytes per weight instead of 2.
// It lives in bench/ only; the engine never stores bf16 values in f32 containers.
// Contract: y[m*N + n] = round_bf16(the f32 sum of x[m,k] * w[n,k] in dot_bf16_f32's
// order: 16 lanes, a fixed pairwise tree, then the tail), so for x and w holding bf16
// values it returns exactly the bits host::linear returns from their bf16 copies.
// Work is split over n with parallel_for, as host::linear splits it.
#pragma once

namespace music3::bench {

void linear_f32_container(const float* x, int M, const float* w, int N, int K, float* y, int threads);

}  // namespace music3::bench
