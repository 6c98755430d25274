#include "engine/runtime/host_math.h"

#include <algorithm>
#include <cmath>
#include <vector>

#include "engine/core/parallel.h"
#include "engine/core/dot_bf16.h"

namespace music3::runtime::host {

void linear(const bf16* x, int M, const bf16* w, int N, int K, bf16* y, int threads) {
  // Waking the worker pool costs tens of microseconds: small sweeps run inline.
  constexpr int64_t kParallelMacs = int64_t(1) << 18;
  if (int64_t(M) * N * K < kParallelMacs) threads = 1;
  // The activations are widened once (exactly), then every weight row is read once
  // for all M rows: same reduction order per output as dot_bf16_f32.
  std::vector<float> xf(static_cast<size_t>(M) * static_cast<size_t>(K));
  for (size_t i = 0; i < xf.size(); ++i) xf[i] = to_f32(x[i]);
  parallel_for(N, threads, [&](int64_t b, int64_t e) {
    std::vector<float> acc(static_cast<size_t>(M));
    for (int64_t n = b; n < e; ++n) {
      dot_rows_f32_bf16(xf.data(), M, K, w + n * K, K, acc.data());
      for (int m = 0; m < M; ++m) y[int64_t(m) * N + n] = to_bf16(acc[static_cast<size_t>(m)]);
    }
  });
}

void rms_norm(const bf16* x, int M, const bf16* w, int H, float eps, bf16* y) {
  for (int m = 0; m < M; ++m) {
    const bf16* xr = x + int64_t(m) * H;
    float ss = 0;
    for (int i = 0; i < H; ++i) {
      float v = to_f32(xr[i]);
      ss += v * v;
    }
    float r = 1.0f / std::sqrt(ss / static_cast<float>(H) + eps);
    for (int i = 0; i < H; ++i) y[int64_t(m) * H + i] = to_bf16(round_bf16(to_f32(xr[i]) * r) * to_f32(w[i]));
  }
}

void silu_mul(const bf16* g, const bf16* u, int M, int I, bf16* y) {
  for (int64_t i = 0; i < int64_t(M) * I; ++i) {
    float gv = to_f32(g[i]);
    float s = round_bf16(gv / (1.0f + std::exp(-gv)));
    y[i] = to_bf16(s * to_f32(u[i]));
  }
}

void add(const bf16* a, const bf16* b, int64_t n, bf16* y) {
  for (int64_t i = 0; i < n; ++i) y[i] = to_bf16(to_f32(a[i]) + to_f32(b[i]));
}

void attend(const bf16* q, const bf16* k, const bf16* v, int T, int heads, int D, float scale, bf16* out) {
  const int H = heads * D;
  std::vector<float> s(static_cast<size_t>(T)), acc(static_cast<size_t>(D));
  for (int h = 0; h < heads; ++h) {
    const int off = h * D;
    float mx = -INFINITY;
    for (int t = 0; t < T; ++t) {
      s[t] = dot_bf16_f32(q + off, k + int64_t(t) * H + off, D) * scale;
      mx = std::max(mx, s[t]);
    }
    float sum = 0;
    std::fill(acc.begin(), acc.end(), 0.0f);
    for (int t = 0; t < T; ++t) {
      float p = std::exp(s[t] - mx);
      sum += p;
      float pb = round_bf16(p);
      for (int d = 0; d < D; ++d) acc[d] += pb * to_f32(v[int64_t(t) * H + off + d]);
    }
    for (int d = 0; d < D; ++d) out[off + d] = to_bf16(acc[d] / sum);
  }
}

}  // namespace music3::runtime::host
