#include "engine/models/music3/acoustic/dit_host_math.h"

#include <algorithm>
#include <cmath>

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

float torch_dot(const float* x, const bf16* w, int64_t K) {
  constexpr int kLanes = 8, kRegs = 8, kIter = kLanes * kRegs, kTail = 16;
  float r[kIter] = {};
  const int64_t main = K - K % kIter, tail = K - K % kTail;
  for (int64_t j = 0; j < main; j += kIter)
    for (int p = 0; p < kIter; ++p) r[p] += x[j + p] * to_f32(w[j + p]);
  for (int half = kRegs / 2; half >= 1; half /= 2)
    for (int g = 0; g < half; ++g)
      for (int l = 0; l < kLanes; ++l) r[g * kLanes + l] += r[(g + half) * kLanes + l];
  float t[kLanes] = {};
  for (int64_t j = main; j < tail; j += kTail) {
    for (int l = 0; l < kLanes; ++l) t[l] += x[j + l] * to_f32(w[j + l]);
    for (int l = 0; l < kLanes; ++l) t[l] += x[j + kLanes + l] * to_f32(w[j + kLanes + l]);
  }
  float acc = r[0] + t[0];
  for (int l = 1; l < kLanes; ++l) acc += r[l] + t[l];
  for (int64_t j = tail; j < K; ++j) acc += x[j] * to_f32(w[j]);
  return acc;
}

void linear(const bf16* x, int64_t M, const bf16* w, int64_t N, int64_t K, const bf16* bias, bf16* y, int threads) {
  std::vector<float> xf(size_t(M * K));
  for (size_t i = 0; i < xf.size(); ++i) xf[i] = to_f32(x[i]);
  parallel_for(N, threads_for(M * N * K, threads), [&](int64_t b, int64_t e) {
    for (int64_t n = b; n < e; ++n) {
      const float bn = bias ? to_f32(bias[n]) : 0.0f;
      for (int64_t m = 0; m < M; ++m) {
        const float dot = torch_dot(xf.data() + m * K, w + n * K, K);
        y[m * N + n] = to_bf16(bias ? dot + bn : dot);
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

namespace {
// torch's RowwiseMoments for a bf16 row on the default CPU capability: Welford over chunks of 16 vectors of 16
// elements (each vector as two 8-lane f32 halves), the chunks merged by a cascade stack, a scalar Welford tail,
// then the 8 lanes merged in order. Returns the mean and the biased variance.
constexpr int kMomentLanes = 8, kMomentVec = 16, kMomentChunk = 16, kMomentDepth = 64;

struct LaneMoments {
  int64_t m0 = 0;
  float m1[kMomentLanes] = {}, m2[kMomentLanes] = {};
};

void add_moments_vec(int64_t m0_add, const float* m1_add, const float* m2_add, LaneMoments& to) {
  const int64_t n = to.m0 + m0_add;
  const float c = n == 0 ? 0.0f : float(m0_add) / float(n);
  for (int l = 0; l < kMomentLanes; ++l) {
    const float delta = m1_add[l] - to.m1[l];
    const float m2_tmp = to.m2[l] + m2_add[l];
    const float c_delta = c * delta;
    const float m0_delta = delta * float(to.m0);
    to.m1[l] = to.m1[l] + c_delta;
    to.m2[l] = m0_delta * c_delta + m2_tmp;
  }
  to.m0 = n;
}

int ceil_log2(int64_t m) {
  int d = 0;
  while ((int64_t(1) << d) < m) ++d;
  return d;
}

void row_moments(const bf16* x, int64_t N, float& mean, float& var) {
  const int64_t n = N / kMomentVec, chunks = (n + kMomentChunk - 1) / kMomentChunk;
  const int depth = ceil_log2(chunks);
  LaneMoments stack[kMomentDepth];
  for (int64_t i = 0; i < chunks; ++i) {
    const bf16* p = x + i * kMomentChunk * kMomentVec;
    const int64_t m0 = std::min<int64_t>(kMomentChunk, n - i * kMomentChunk);
    float a1[kMomentLanes] = {}, b1[kMomentLanes] = {}, a2[kMomentLanes] = {}, b2[kMomentLanes] = {};
    for (int64_t j = 0; j < m0; ++j) {
      const float c = 1.0f / float(j + 1);
      for (int l = 0; l < kMomentLanes; ++l) {
        const float f0 = to_f32(p[j * kMomentVec + l]), f1 = to_f32(p[j * kMomentVec + kMomentLanes + l]);
        const float d0 = f0 - a1[l], d1 = f1 - b1[l];
        a1[l] = d0 * c + a1[l];
        b1[l] = d1 * c + b1[l];
        a2[l] = d0 * (f0 - a1[l]) + a2[l];
        b2[l] = d1 * (f1 - b1[l]) + b2[l];
      }
    }
    add_moments_vec(m0, a1, a2, stack[0]);
    add_moments_vec(m0, b1, b2, stack[0]);
    int64_t mask = i + 1;
    for (int j = 1; j < depth && (mask & 1) == 0; ++j) {
      add_moments_vec(stack[j - 1].m0, stack[j - 1].m1, stack[j - 1].m2, stack[j]);
      stack[j - 1] = LaneMoments{};
      mask >>= 1;
    }
  }
  for (int i = 1; i < depth; ++i) add_moments_vec(stack[i].m0, stack[i].m1, stack[i].m2, stack[0]);
  int64_t m0 = 0;
  float m1 = 0.0f, m2 = 0.0f;
  for (int64_t i = n * kMomentVec; i < N; ++i) {
    const float v = to_f32(x[i]), delta = v - m1;
    ++m0;
    m1 += delta / float(m0);
    m2 += delta * (v - m1);
  }
  const int64_t m0_add = n * kMomentVec / kMomentLanes;
  for (int l = 0; l < kMomentLanes; ++l) {
    const int64_t total = m0 + m0_add;
    const float c = total == 0 ? 0.0f : float(m0_add) / float(total);
    const float delta = stack[0].m1[l] - m1;
    m1 += c * delta;
    m2 += stack[0].m2[l] + delta * delta * c * float(m0);
    m0 = total;
  }
  mean = m1;
  var = m2 / float(N);
}
}  // namespace

void layer_norm(const bf16* x, int64_t M, int64_t H, const bf16* w, const bf16* b, float eps, bf16* y) {
  for (int64_t m = 0; m < M; ++m) {
    const bf16* r = x + m * H;
    float mean = 0.0f, var = 0.0f;
    row_moments(r, H, mean, var);
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
    std::vector<float> qf(static_cast<size_t>(D)), acc(static_cast<size_t>(D)), pv(static_cast<size_t>(4 * D));
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
        // P·V as Ilp4 sums per column d (lane j % 4, the tail into lane 0), walked key by key so each value row is
        // read contiguously; every lane adds its terms in the same order as a column-by-column walk.
        const int64_t n4 = n - n % 4;
        std::fill(pv.begin(), pv.end(), 0.0f);
        for (int64_t j = 0; j < n; ++j) {
          float* lane = pv.data() + (j < n4 ? j % 4 : 0) * D;
          const float p = pb[size_t(j)];
          const bf16* vr = v + (k0 + j) * H + off;
          for (int64_t d = 0; d < D; ++d) lane[d] += p * to_f32(vr[d]);
        }
        for (int64_t d = 0; d < D; ++d) {
          const float dot = ((pv[size_t(d)] + pv[size_t(D + d)]) + pv[size_t(2 * D + d)]) + pv[size_t(3 * D + d)];
          acc[size_t(d)] = k0 == 0 ? dot : acc[size_t(d)] * correction + dot;
        }
      }
      for (int64_t d = 0; d < D; ++d) out[row * H + off + d] = to_bf16(acc[size_t(d)] / run_sum);
    }
  });
}

}  // namespace music3::acoustic::host
