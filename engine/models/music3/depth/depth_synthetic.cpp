#include "engine/models/music3/depth/depth_synthetic.h"

#include <cmath>
#include <functional>

#include "engine/core/parallel.h"
#include "engine/core/counter_rng.h"

namespace music3::depth {
namespace {

// Approximately standard normal from counter-based bits: the sum of four uniforms,
// centred and scaled to unit variance (Irwin-Hall). Cheap and reproducible.
float normal_at(uint64_t seed, uint64_t stream, uint64_t i) {
  auto r = philox4x32_10({{static_cast<uint32_t>(i), static_cast<uint32_t>(i >> 32),
                           static_cast<uint32_t>(stream), static_cast<uint32_t>(stream >> 32)}},
                          static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32));
  float s = 0;
  for (uint32_t v : r.v) s += static_cast<float>(v >> 8) * (1.0f / 16777216.0f);
  return (s - 2.0f) * 1.7320508f;  // var of the sum of 4 U(0,1) is 1/3
}

void fill(HostTensor& t, uint64_t seed, uint64_t stream, float mean, float stddev, int threads) {
  const int64_t n = t.shape.numel();
  bf16* d = t.mutable_ptr();
  parallel_for(n, threads, [&](int64_t b, int64_t e) {
    for (int64_t i = b; i < e; ++i)
      d[i] = to_bf16(mean + stddev * normal_at(seed, stream, static_cast<uint64_t>(i)));
  });
}
}  // namespace

DepthWeights synthetic_depth_weights(const DepthConfig& cfg, uint64_t seed, int threads) {
  DepthWeights w = DepthWeights::allocate(cfg);
  uint64_t stream = 0;
  for (auto& [spec, slot] : w.named()) {
    ++stream;
    const auto& s = spec.shape;
    if (s.rank == 1) {
      fill(*slot, seed, stream, 1.0f, 0.1f, threads);  // RMSNorm weights
    } else if (spec.name.rfind("audio_embeddings", 0) == 0) {
      fill(*slot, seed, stream, 0.0f, 1.0f, threads);
    } else if (spec.name.rfind("pos_embedding", 0) == 0) {
      fill(*slot, seed, stream, 0.0f, 0.5f, threads);
    } else if (spec.name.rfind("audio_heads", 0) == 0) {
      fill(*slot, seed, stream, 0.0f, 2.5f / std::sqrt(static_cast<float>(s[1])), threads);  // logits std ~2.5
    } else {
      fill(*slot, seed, stream, 0.0f, 1.0f / std::sqrt(static_cast<float>(s[1])), threads);
    }
  }
  return w;
}

void synthetic_frame_inputs(const DepthConfig& cfg, uint64_t seed, uint64_t frame, bf16* last_hidden,
                            bf16* c0_embedding) {
  const uint64_t stream = 0x1000000ull + frame * 2;
  for (int64_t i = 0; i < 2 * int64_t(cfg.hidden); ++i)
    last_hidden[i] = to_bf16(normal_at(seed, stream, static_cast<uint64_t>(i)));
  for (int64_t i = 0; i < cfg.hidden; ++i)
    c0_embedding[i] = to_bf16(0.05f * normal_at(seed, stream + 1, static_cast<uint64_t>(i)));
}

}  // namespace music3::depth
