#include "engine/models/music3/acoustic/dit_host_math.h"

#include <algorithm>
#include <cmath>

#include "engine/core/dot_bf16.h"
#include "engine/core/parallel.h"

namespace music3::acoustic::host {

namespace {
// Waking the worker pool costs tens of microseconds: small sweeps run inline.
int threads_for(int64_t work, int threads) { return work < (int64_t(1) << 16) ? 1 : threads; }

// torch's cpublas `sum`: four partial sums over l % 4 (the tail into the first), then added in order.
struct Ilp4 {
  float p[4] = {0, 0, 0, 0};
  float total() const { return ((p[0] + p[1]) + p[2]) + p[3]; }
};
}  // namespace

void linear(const bf16* x, int64_t M, const bf16* w, int64_t N, int64_t K, const bf16* bias, bf16* y, int threads) {
  std::vector<float> xf(size_t(M * K));
  for (size_t i = 0; i < xf.size(); ++i) xf[i] = to_f32(x[i]);
  parallel_for(N, threads_for(M * N * K, threads), [&](int64_t b, int64_t e) {
    std::vector<float> acc(static_cast<size_t>(M));
    for (int64_t n = b; n < e; ++n) {
      const float bn = bias ? to_f32(bias[n]) : 0.0f;
      for (int64_t m0 = 0; m0 < M; m0 += 64) {  // rows in slices: the weight row stays in cache
        const int64_t rows = std::min<int64_t>(64, M - m0);
        dot_rows_f32_bf16(xf.data() + m0 * K, int(rows), K, w + n * K, K, acc.data());
        for (int64_t m = 0; m < rows; ++m) y[(m0 + m) * N + n] = to_bf16(bias ? acc[size_t(m)] + bn : acc[size_t(m)]);
      }
    }
  });
}

void conv_taps(const bf16* x, int64_t in, int64_t T, const bf16* w, int64_t out, int kernel, const bf16* bias,
               bf16* y, int threads) {
  const int pad = (kernel - 1) / 2;
  const int64_t K = in * kernel;
  // im2col, widened: cols[t][l] with l = ci * kernel + tap (zero outside the input).
  std::vector<float> cols(size_t(T * K), 0.0f);
  for (int64_t t = 0; t < T; ++t)
    for (int64_t ci = 0; ci < in; ++ci)
      for (int k = 0; k < kernel; ++k) {
        const int64_t s = t + k - pad;
        if (s >= 0 && s < T) cols[size_t(t * K + ci * kernel + k)] = to_f32(x[ci * T + s]);
      }
  parallel_for(out, threads_for(out * T * K, threads), [&](int64_t b, int64_t e) {
    std::vector<float> wf(static_cast<size_t>(K));
    for (int64_t co = b; co < e; ++co) {
      for (int64_t l = 0; l < K; ++l) wf[size_t(l)] = to_f32(w[co * K + l]);
      const int64_t k4 = K - K % 4;
      for (int64_t t = 0; t < T; ++t) {
        const float* c = cols.data() + t * K;
        Ilp4 s;
        for (int64_t l = 0; l < k4; l += 4)
          for (int j = 0; j < 4; ++j) s.p[j] += c[l + j] * wf[size_t(l + j)];
        for (int64_t l = k4; l < K; ++l) s.p[0] += c[l] * wf[size_t(l)];
        const float dot = s.total();
        y[co * T + t] = to_bf16(bias ? dot + to_f32(bias[co]) : dot);
      }
    }
  });
}

void layer_norm(const bf16* x, int64_t M, int64_t H, const bf16* w, const bf16* b, float eps, bf16* y) {
  for (int64_t m = 0; m < M; ++m) {
    const bf16* r = x + m * H;
    double sum = 0, sq = 0;
    for (int64_t i = 0; i < H; ++i) sum += to_f32(r[i]);
    const double mean_d = sum / double(H);
    for (int64_t i = 0; i < H; ++i) {
      const double d = to_f32(r[i]) - mean_d;
      sq += d * d;
    }
    const float mean = float(mean_d), var = float(sq / double(H));
    const float rstd = 1.0f / std::sqrt(var + eps);
    const float shift = -mean * rstd;
    for (int64_t i = 0; i < H; ++i)
      y[m * H + i] = to_bf16((to_f32(r[i]) * rstd + shift) * to_f32(w[i]) + to_f32(b[i]));
  }
}

void rope_tables(int64_t positions, int rotary, float theta, std::vector<bf16>& cos, std::vector<bf16>& sin) {
  const int half = rotary / 2;
  std::vector<float> inv(static_cast<size_t>(half));
  for (int i = 0; i < half; ++i) inv[size_t(i)] = 1.0f / std::pow(theta, float(2 * i) / float(rotary));
  cos.assign(size_t(positions * rotary), bf16{});
  sin.assign(size_t(positions * rotary), bf16{});
  for (int64_t p = 0; p < positions; ++p)
    for (int i = 0; i < rotary; ++i) {
      const float a = float(p) * inv[size_t(i % half)];
      cos[size_t(p * rotary + i)] = to_bf16(std::cos(a));
      sin[size_t(p * rotary + i)] = to_bf16(std::sin(a));
    }
}

void apply_rope(bf16* x, int64_t S, int heads, int head_dim, int rotary, const bf16* cos, const bf16* sin) {
  const int half = rotary / 2;
  std::vector<float> rot(static_cast<size_t>(rotary));
  for (int64_t p = 0; p < S; ++p)
    for (int h = 0; h < heads; ++h) {
      bf16* v = x + (p * heads + h) * head_dim;
      for (int i = 0; i < rotary; ++i) {
        const float rh = i < half ? -to_f32(v[i + half]) : to_f32(v[i - half]);
        const float c = to_f32(cos[p * rotary + i]), s = to_f32(sin[p * rotary + i]);
        rot[size_t(i)] = round_bf16(round_bf16(to_f32(v[i]) * c) + round_bf16(rh * s));
      }
      for (int i = 0; i < rotary; ++i) v[i] = to_bf16(rot[size_t(i)]);
    }
}

void attention(const bf16* q, const bf16* k, const bf16* v, int64_t S, int heads, int head_dim, float scale,
               bf16* out, int threads) {
  const int64_t H = int64_t(heads) * head_dim, D = head_dim;
  constexpr int kSumLanes = 8;  // torch's Vectorized<float> width on the default CPU capability
  parallel_for(S * heads, threads_for(S * S * H, threads), [&](int64_t b, int64_t e) {
    std::vector<float> qf(static_cast<size_t>(D)), acc(static_cast<size_t>(D));
    std::vector<float> s(static_cast<size_t>(kAttentionKeyBlock)), pb(static_cast<size_t>(kAttentionKeyBlock));
    for (int64_t job = b; job < e; ++job) {
      const int64_t row = job / heads, off = (job % heads) * D;
      for (int64_t d = 0; d < D; ++d) qf[size_t(d)] = to_f32(q[row * H + off + d]);
      float run_max = -INFINITY, run_sum = 0.0f;
      std::fill(acc.begin(), acc.end(), 0.0f);
      for (int64_t k0 = 0; k0 < S; k0 += kAttentionKeyBlock) {
        const int64_t n = std::min<int64_t>(kAttentionKeyBlock, S - k0);
        float bmax = -INFINITY;
        for (int64_t j = 0; j < n; ++j) {
          const bf16* kr = k + (k0 + j) * H + off;
          Ilp4 dot;
          const int64_t d4 = D - D % 4;
          for (int64_t d = 0; d < d4; d += 4)
            for (int l = 0; l < 4; ++l) dot.p[l] += qf[size_t(d + l)] * to_f32(kr[d + l]);
          for (int64_t d = d4; d < D; ++d) dot.p[0] += qf[size_t(d)] * to_f32(kr[d]);
          s[size_t(j)] = dot.total() * scale;
          bmax = std::max(bmax, s[size_t(j)]);
        }
        const float m = std::max(run_max, bmax);
        float lanes[kSumLanes] = {};
        const int64_t n8 = n - n % kSumLanes;
        for (int64_t j = 0; j < n; ++j) {
          const float p = std::exp(s[size_t(j)] - m);
          if (j < n8) lanes[j % kSumLanes] += p;
          s[size_t(j)] = p;
          pb[size_t(j)] = round_bf16(p);
        }
        float bsum = lanes[0];
        for (int l = 1; l < kSumLanes; ++l) bsum += lanes[l];
        for (int64_t j = n8; j < n; ++j) bsum += s[size_t(j)];
        const float correction = std::exp(run_max - m);
        run_sum = bsum + correction * run_sum;
        run_max = m;
        const int64_t n4 = n - n % 4;
        for (int64_t d = 0; d < D; ++d) {
          Ilp4 dot;
          for (int64_t j = 0; j < n4; j += 4)
            for (int l = 0; l < 4; ++l) dot.p[l] += pb[size_t(j + l)] * to_f32(v[(k0 + j + l) * H + off + d]);
          for (int64_t j = n4; j < n; ++j) dot.p[0] += pb[size_t(j)] * to_f32(v[(k0 + j) * H + off + d]);
          acc[size_t(d)] = k0 == 0 ? dot.total() : acc[size_t(d)] * correction + dot.total();
        }
      }
      const float inv = 1.0f / run_sum;
      for (int64_t d = 0; d < D; ++d) out[row * H + off + d] = to_bf16(acc[size_t(d)] * inv);
    }
  });
}

}  // namespace music3::acoustic::host
