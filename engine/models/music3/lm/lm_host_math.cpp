#include "engine/models/music3/lm/lm_host_math.h"

#include <algorithm>
#include <cmath>

#include "engine/core/dot_bf16.h"

namespace music3::lm::host {

RopeTable rope_table(double theta, int head_dim, int64_t pos0, int T) {
  RopeTable t;
  t.dim = head_dim;
  t.positions = T;
  const int half = head_dim / 2;
  std::vector<float> inv_freq(static_cast<size_t>(half));
  const float base = static_cast<float>(theta);
  for (int i = 0; i < half; ++i) {
    const float exponent = static_cast<float>(2 * i) / static_cast<float>(head_dim);
    inv_freq[size_t(i)] = 1.0f / std::pow(base, exponent);
  }
  t.cos.resize(size_t(T) * size_t(head_dim));
  t.sin.resize(t.cos.size());
  for (int r = 0; r < T; ++r) {
    const float pos = static_cast<float>(pos0 + r);
    for (int i = 0; i < head_dim; ++i) {
      const float angle = pos * inv_freq[size_t(i % half)];
      t.cos[size_t(r) * size_t(head_dim) + size_t(i)] = to_bf16(std::cos(angle));
      t.sin[size_t(r) * size_t(head_dim) + size_t(i)] = to_bf16(std::sin(angle));
    }
  }
  return t;
}

void apply_rope(bf16* x, int64_t rows, int per_position, const RopeTable& table) {
  const int D = table.dim, half = D / 2;
  std::vector<float> in(static_cast<size_t>(D));
  for (int64_t r = 0; r < rows; ++r) {
    bf16* row = x + r * D;
    const int64_t at = (r / per_position) % table.positions;
    const bf16* c = table.cos.data() + at * D;
    const bf16* s = table.sin.data() + at * D;
    for (int i = 0; i < D; ++i) in[size_t(i)] = to_f32(row[i]);
    for (int i = 0; i < D; ++i) {
      const float rot = i < half ? -in[size_t(i + half)] : in[size_t(i - half)];
      const float a = round_bf16(in[size_t(i)] * to_f32(c[i]));
      const float b = round_bf16(rot * to_f32(s[i]));
      row[i] = to_bf16(a + b);
    }
  }
}

void attend_gqa(const bf16* q, const bf16* k, const bf16* v, int T, int heads, int kv_heads, int D, float scale,
                bf16* out) {
  const int group = heads / kv_heads, kv_width = kv_heads * D;
  std::vector<float> s(static_cast<size_t>(T)), acc(static_cast<size_t>(D));
  for (int h = 0; h < heads; ++h) {
    const int kv_off = (h / group) * D;
    float mx = -INFINITY;
    for (int t = 0; t < T; ++t) {
      s[size_t(t)] = dot_bf16_f32(q + h * D, k + int64_t(t) * kv_width + kv_off, D) * scale;
      mx = std::max(mx, s[size_t(t)]);
    }
    float sum = 0;
    std::fill(acc.begin(), acc.end(), 0.0f);
    for (int t = 0; t < T; ++t) {
      const float p = std::exp(s[size_t(t)] - mx);
      sum += p;
      const float pb = round_bf16(p);
      const bf16* vr = v + int64_t(t) * kv_width + kv_off;
      for (int d = 0; d < D; ++d) acc[size_t(d)] += pb * to_f32(vr[d]);
    }
    for (int d = 0; d < D; ++d) out[h * D + d] = to_bf16(acc[size_t(d)] / sum);
  }
}

}  // namespace music3::lm::host
