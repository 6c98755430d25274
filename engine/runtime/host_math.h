// The host arms' reference arithmetic, mirroring the upstream modules' bf16 rounding
// points (PyTorch bf16 modules on the CPU): every Linear is bf16 x bf16 with f32 accumulation and one bf16 rounding; RMSNorm
// rounds x*rsqrt(var+eps) to bf16 and then the product with the weight; SiLU rounds
// once and the product with `up` again; each residual add rounds once; attention
// runs the softmax in f32, rounds P to bf16 before P.V (as the CPU and GPU flash
// kernels do) and rounds the output once.
// Rows are independent; every output element is reduced by one thread in a fixed
// order, so results do not depend on `threads`. Pure functions over caller-owned
// buffers: thread-safe.
#pragma once
#include <cstdint>

#include "engine/core/bf16.h"

namespace music3::runtime::host {

// y[m, n] = bf16(sum_k x[m,k] * w[n,k]) for m < M, n < N.
void linear(const bf16* x, int M, const bf16* w, int N, int K, bf16* y, int threads);
// y[m] = bf16(bf16(x[m] * rsqrt(mean(x[m]^2) + eps)) * w)
void rms_norm(const bf16* x, int M, const bf16* w, int H, float eps, bf16* y);
// y[m,i] = bf16(bf16(silu(g[m,i])) * u[m,i])
void silu_mul(const bf16* g, const bf16* u, int M, int I, bf16* y);
// y[i] = bf16(a[i] + b[i]) over n elements
void add(const bf16* a, const bf16* b, int64_t n, bf16* y);
// One query row q[H] over keys/values k,v [T, H] (heads are contiguous D-slices).
void attend(const bf16* q, const bf16* k, const bf16* v, int T, int heads, int D, float scale, bf16* out);

}  // namespace music3::runtime::host
