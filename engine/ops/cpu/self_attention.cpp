// self_attention on the CPU: one (row, head) per parallel_for index, the keys of the row's batch in tiles of
// kSelfAttentionKeyTile (the CUDA kernel's tile): per tile the f32 scores scale * q.k (dot in dimension order),
// the tile max into the running max m, the f32 accumulator and the row sum rescaled by exp(m_old - m), then
// p = exp(s - m): the sum adds p unrounded (in key order), the accumulator adds bf16(p) * v (in key order);
// out = bf16(acc / sum). With rotary tables the q|k heads of a copy of qkv are first rotated by rope_cpu
// (head_norm_and_rope.h, positions from 0), so the fused form gives rotation-then-attention's bits.
#include <algorithm>
#include <cmath>
#include <vector>

#include "engine/core/bf16.h"
#include "engine/core/parallel.h"
#include "engine/ops/cpu/cpu_providers.h"
#include "engine/ops/cpu/head_norm_and_rope.h"
#include "engine/ops/transformer_ops.h"

namespace music3::ops {

namespace {
constexpr int64_t kSelfAttentionKeyTile = 64;
}

void self_attention_cpu(const Queue& q, const void* args) {
  const auto& p = *static_cast<const SelfAttentionArgs*>(args);
  const int64_t rows = p.qkv.shape[0], B = p.batch, S = rows / B, H = p.heads;
  const int64_t W = p.qkv.shape[1] / 3, D = W / H;
  std::vector<bf16> rotated;
  if (p.cos.data) {
    rotated.assign(p.qkv.as<const bf16>(), p.qkv.as<const bf16>() + p.qkv.numel());
    Tensor x = p.qkv;
    x.data = rotated.data();
    const RopeArgs r{x, p.cos, p.sin, 0, static_cast<int>(2 * H), static_cast<int>(B), static_cast<int>(D)};
    rope_cpu(q, r);
  }
  const bf16* qkv = p.cos.data ? rotated.data() : p.qkv.as<const bf16>();
  bf16* out = p.out.as<bf16>();
  parallel_for(rows * H, q.threads, [&](int64_t begin, int64_t end) {
    std::vector<float> qf(static_cast<size_t>(D)), acc(static_cast<size_t>(D)), s(static_cast<size_t>(kSelfAttentionKeyTile));
    for (int64_t job = begin; job < end; ++job) {
      const int64_t row = job / H, h = job % H, b = row % B;
      for (int64_t d = 0; d < D; ++d) qf[size_t(d)] = to_f32(qkv[row * 3 * W + h * D + d]);
      std::fill(acc.begin(), acc.end(), 0.0f);
      float m = -INFINITY, sum = 0.0f;
      for (int64_t k0 = 0; k0 < S; k0 += kSelfAttentionKeyTile) {
        const int64_t n = std::min(kSelfAttentionKeyTile, S - k0);
        float tile_max = -INFINITY;
        for (int64_t j = 0; j < n; ++j) {
          const bf16* kr = qkv + ((k0 + j) * B + b) * 3 * W + W + h * D;
          float dot = 0.0f;
          for (int64_t d = 0; d < D; ++d) dot += qf[size_t(d)] * to_f32(kr[d]);
          s[size_t(j)] = dot * p.scale;
          tile_max = std::max(tile_max, s[size_t(j)]);
        }
        const float m_new = std::max(m, tile_max), correction = std::exp(m - m_new);
        sum *= correction;
        for (int64_t d = 0; d < D; ++d) acc[size_t(d)] *= correction;
        m = m_new;
        for (int64_t j = 0; j < n; ++j) {
          const float e = std::exp(s[size_t(j)] - m), pb = round_bf16(e);
          sum += e;
          const bf16* vr = qkv + ((k0 + j) * B + b) * 3 * W + 2 * W + h * D;
          for (int64_t d = 0; d < D; ++d) acc[size_t(d)] += pb * to_f32(vr[d]);
        }
      }
      for (int64_t d = 0; d < D; ++d) out[row * W + h * D + d] = to_bf16(acc[size_t(d)] / sum);
    }
  });
}

}  // namespace music3::ops
