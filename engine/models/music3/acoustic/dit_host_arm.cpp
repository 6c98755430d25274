#include "engine/models/music3/acoustic/dit_host_arm.h"

#include <cmath>
#include <stdexcept>
#include <string>

#include "engine/models/music3/acoustic/dit_host_math.h"

namespace music3::acoustic {

namespace {
constexpr double kTwoPi = 6.283185307179586;  // Python's 2.0 * math.pi, taken to f32 by torch's scalar multiply

float silu(float v) { return v / (1.0f + std::exp(-v)); }

void add_into(std::vector<bf16>& h, const std::vector<bf16>& r) {
  for (size_t i = 0; i < h.size(); ++i) h[i] = to_bf16(to_f32(h[i]) + to_f32(r[i]));
}
}  // namespace

std::vector<bf16> dit_fourier_features(const DitWeights& w, bf16 t) {
  const int half = w.cfg.fourier_dim / 2;
  const float scaled = round_bf16(to_f32(t) * static_cast<float>(kTwoPi));
  std::vector<bf16> f(size_t(w.cfg.fourier_dim));
  for (int i = 0; i < half; ++i) {
    const float a = round_bf16(scaled * to_f32(w.time_proj.ptr()[i]));
    f[size_t(i)] = to_bf16(std::cos(a));
    f[size_t(half + i)] = to_bf16(std::sin(a));
  }
  return f;
}

std::vector<bf16> DitHostArm::time_token(bf16 t) const {
  const auto& c = w_.cfg;
  const std::vector<bf16> f = dit_fourier_features(w_, t);
  std::vector<bf16> h1(size_t(c.inner())), temb(size_t(c.inner()));
  host::linear(f.data(), 1, w_.lin1_w.ptr(), c.inner(), c.fourier_dim, w_.lin1_b.ptr(), h1.data(), threads_);
  for (auto& v : h1) v = to_bf16(silu(to_f32(v)));
  host::linear(h1.data(), 1, w_.lin2_w.ptr(), c.inner(), c.inner(), w_.lin2_b.ptr(), temb.data(), threads_);
  return temb;
}

void DitHostArm::block(const DitBlockWeights& b, std::vector<bf16>& h, int64_t S, const Rope& rope) const {
  const auto& c = w_.cfg;
  const int64_t D = c.inner(), F = c.ff_inner;
  std::vector<bf16> n(h.size()), q(h.size()), k(h.size()), v(h.size()), o(h.size()), r(h.size());
  host::layer_norm(h.data(), S, D, b.norm1_w.ptr(), b.norm1_b.ptr(), DitConfig::kNormEps, n.data());
  host::linear(n.data(), S, b.wq.ptr(), D, D, nullptr, q.data(), threads_);
  host::linear(n.data(), S, b.wk.ptr(), D, D, nullptr, k.data(), threads_);
  host::linear(n.data(), S, b.wv.ptr(), D, D, nullptr, v.data(), threads_);
  host::apply_rope(q.data(), S, c.heads, c.head_dim, rope.dims, rope.cos.data(), rope.sin.data());
  host::apply_rope(k.data(), S, c.heads, c.head_dim, rope.dims, rope.cos.data(), rope.sin.data());
  const float scale = static_cast<float>(1.0 / std::sqrt(double(c.head_dim)));
  host::attention(q.data(), k.data(), v.data(), S, c.heads, c.head_dim, scale, o.data(), threads_);
  host::linear(o.data(), S, b.wo.ptr(), D, D, nullptr, r.data(), threads_);
  add_into(h, r);

  host::layer_norm(h.data(), S, D, b.norm2_w.ptr(), b.norm2_b.ptr(), DitConfig::kNormEps, n.data());
  std::vector<bf16> ff(size_t(S * 2 * F)), m(size_t(S * F));
  host::linear(n.data(), S, b.ff_in_w.ptr(), 2 * F, D, b.ff_in_b.ptr(), ff.data(), threads_);
  for (int64_t s = 0; s < S; ++s)
    for (int64_t i = 0; i < F; ++i) {
      const float u = to_f32(ff[size_t(s * 2 * F + i)]), g = to_f32(ff[size_t(s * 2 * F + F + i)]);
      m[size_t(s * F + i)] = to_bf16(u * round_bf16(silu(g)));
    }
  host::linear(m.data(), S, b.ff_out_w.ptr(), D, F, b.ff_out_b.ptr(), r.data(), threads_);
  add_into(h, r);
}

std::vector<bf16> DitHostArm::forward(const bf16* x, int64_t length, bf16 t, const bf16* cond) {
  const auto& c = w_.cfg;
  if (length < 1) throw std::invalid_argument("dit: a window needs at least one latent, got " + std::to_string(length));
  const int64_t L = length, C = c.in_channels, C2 = c.concat_channels(), D = c.inner(), S = L + 1;
  // 1. [x; 0; cond^T] and the 1x1 preprocess conv with its residual.
  const int64_t x_row = 0, cond_row = 2 * C;  // [x; 0; cond^T]
  std::vector<bf16> X(size_t(C2 * L), bf16{});
  std::copy(x, x + C * L, X.begin() + x_row * L);
  if (cond)
    for (int64_t j = 0; j < L; ++j)
      for (int64_t ch = 0; ch < c.condition_dim; ++ch) X[size_t((cond_row + ch) * L + j)] = cond[j * c.condition_dim + ch];
  std::vector<bf16> P(X.size());
  host::conv_taps(X.data(), C2, L, w_.pre_conv.ptr(), C2, 1, nullptr, P.data(), threads_);
  std::vector<bf16> Xt(X.size());  // [L][C2]
  for (int64_t ch = 0; ch < C2; ++ch)
    for (int64_t j = 0; j < L; ++j) Xt[size_t(j * C2 + ch)] = to_bf16(to_f32(P[size_t(ch * L + j)]) + to_f32(X[size_t(ch * L + j)]));
  // 2-3. the time token, then proj_in of every latent.
  std::vector<bf16> h(size_t(S * D));
  const std::vector<bf16> temb = time_token(t);
  std::copy(temb.begin(), temb.end(), h.begin());
  host::linear(Xt.data(), L, w_.proj_in.ptr(), D, C2, nullptr, h.data() + D, threads_);
  // 4. the blocks, rotary positions 0..L.
  Rope rope;
  rope.dims = c.rotary_dim;
  host::rope_tables(S, rope.dims, DitConfig::kRotaryTheta, rope.cos, rope.sin);
  for (const auto& b : w_.blocks) block(b, h, S, rope);
  // 5. drop the time token, proj_out, the 1x1 postprocess conv with its residual.
  std::vector<bf16> yt(size_t(L * C)), y(size_t(C * L)), post(size_t(C * L)), out(size_t(C * L));
  host::linear(h.data() + D, L, w_.proj_out.ptr(), C, D, nullptr, yt.data(), threads_);
  for (int64_t j = 0; j < L; ++j)
    for (int64_t ch = 0; ch < C; ++ch) y[size_t(ch * L + j)] = yt[size_t(j * C + ch)];
  host::conv_taps(y.data(), C, L, w_.post_conv.ptr(), C, 1, nullptr, post.data(), threads_);
  for (size_t i = 0; i < out.size(); ++i) out[i] = to_bf16(to_f32(post[i]) + to_f32(y[i]));
  ++forwards_;
  return out;
}

VelocityPair DitHostArm::velocities(const bf16* x, int64_t length, bf16 t, const bf16* cond) {
  VelocityPair p;
  p.conditional = forward(x, length, t, cond);
  p.unconditional = forward(x, length, t, nullptr);
  return p;
}

}  // namespace music3::acoustic
