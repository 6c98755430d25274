#include "engine/models/music3/acoustic/acoustic_synthetic.h"

#include <cmath>
#include <stdexcept>

#include "engine/runtime/synthetic_normal.h"

namespace music3::acoustic {

namespace {
// This component's stream of the shared synthetic normal (the salt keeps it apart from other components').
class Normal : public runtime::SyntheticNormal {
 public:
  explicit Normal(uint64_t seed) : SyntheticNormal(seed, 0xD1B54A32D192ED03ull) {}
};

HostTensor fill(Normal& n, Shape s, float mean, float stddev) {
  HostTensor t(s);
  runtime::fill_normal(n, t.mutable_ptr(), t.numel(), mean, stddev);
  return t;
}

HostTensor weight(Normal& n, int64_t out, int64_t in) { return fill(n, Shape{out, in}, 0.0f, 1.0f / std::sqrt(float(in))); }
}  // namespace

DitConfig dit_geometry(const std::string& name) {
  DitConfig c = DitConfig::full();
  if (name == "full") return c;
  if (name == "mid") {
    c.layers = 4;
    return c;
  }
  if (name == "tiny") {
    c.in_channels = 8, c.condition_dim = 16, c.layers = 2, c.heads = 2, c.head_dim = 8, c.ff_inner = 32;
    c.rotary_dim = 4, c.fourier_dim = 8;
    return c;
  }
  throw std::invalid_argument("unknown dit geometry '" + name + "' (expected full, mid or tiny)");
}

ConditionEncoderConfig condition_encoder_geometry(const std::string& name) {
  ConditionEncoderConfig c;
  if (name == "full") return c;
  if (name == "mid") {
    c.hidden = 1024;
    return c;
  }
  if (name == "tiny") {
    c.hidden = 16, c.out_dim = 16;
    return c;
  }
  throw std::invalid_argument("unknown condition encoder geometry '" + name + "' (expected full, mid or tiny)");
}

DitWeights synthetic_dit_weights(const DitConfig& cfg, uint64_t seed) {
  cfg.validate();
  Normal n(seed);
  DitWeights w;
  w.cfg = cfg;
  const int64_t d = cfg.inner(), c2 = cfg.concat_channels(), f = cfg.fourier_dim, ff = cfg.ff_inner;
  w.time_proj = fill(n, Shape{f / 2, 1}, 0.0f, 1.0f);
  w.lin1_w = weight(n, d, f);
  w.lin1_b = fill(n, Shape{d}, 0.0f, 0.02f);
  w.lin2_w = weight(n, d, d);
  w.lin2_b = fill(n, Shape{d}, 0.0f, 0.02f);
  w.pre_conv = fill(n, Shape{c2, c2, 1}, 0.0f, 1.0f / std::sqrt(float(c2)));
  w.proj_in = weight(n, d, c2);
  w.blocks.resize(size_t(cfg.layers));
  for (auto& b : w.blocks) {
    b.norm1_w = fill(n, Shape{d}, 1.0f, 0.1f);
    b.norm1_b = fill(n, Shape{d}, 0.0f, 0.1f);
    b.wq = weight(n, d, d);
    b.wk = weight(n, d, d);
    b.wv = weight(n, d, d);
    b.wo = weight(n, d, d);
    b.norm2_w = fill(n, Shape{d}, 1.0f, 0.1f);
    b.norm2_b = fill(n, Shape{d}, 0.0f, 0.1f);
    b.ff_in_w = weight(n, 2 * ff, d);
    b.ff_in_b = fill(n, Shape{2 * ff}, 0.0f, 0.02f);
    b.ff_out_w = weight(n, d, ff);
    b.ff_out_b = fill(n, Shape{d}, 0.0f, 0.02f);
  }
  w.proj_out = weight(n, cfg.in_channels, d);
  w.post_conv = fill(n, Shape{cfg.in_channels, cfg.in_channels, 1}, 0.0f, 1.0f / std::sqrt(float(cfg.in_channels)));
  return w;
}

ConditionEncoderWeights synthetic_condition_encoder_weights(const ConditionEncoderConfig& cfg, uint64_t seed) {
  cfg.validate();
  Normal n(seed ^ 0xC0DEC0DEull);
  ConditionEncoderWeights w;
  w.cfg = cfg;
  w.logits = fill(n, Shape{cfg.layers}, 0.0f, 1.0f);
  w.scale = fill(n, Shape{1}, 1.0f, 0.1f);
  w.proj_w = fill(n, Shape{cfg.out_dim, cfg.hidden, ConditionEncoderConfig::kKernel}, 0.0f,
                  1.0f / std::sqrt(float(3 * cfg.hidden)));
  w.proj_b = fill(n, Shape{cfg.out_dim}, 0.0f, 0.02f);
  return w;
}

std::vector<bf16> synthetic_normal(size_t count, uint64_t seed) {
  Normal n(seed ^ 0x5A5A5A5A5A5A5A5Aull);
  std::vector<bf16> out(count);
  runtime::fill_normal(n, out.data(), static_cast<int64_t>(count), 0.0f, 1.0f);
  return out;
}

}  // namespace music3::acoustic
