#include "engine/models/music3/vocoder/vocoder_synthetic.h"

#include <cmath>
#include <stdexcept>

#include "engine/runtime/synthetic_normal.h"

namespace music3::vocoder {

namespace {
// This component's stream of the shared synthetic normal (the salt keeps it apart from other components').
class Normal : public runtime::SyntheticNormal {
 public:
  explicit Normal(uint64_t seed) : SyntheticNormal(seed, 0x632BE59BD9B4E019ull) {}
};

std::vector<bf16> alphas(Normal& n, int channels) {
  std::vector<bf16> a(static_cast<size_t>(channels));
  for (auto& v : a) v = to_bf16(std::exp(0.5f * n.next()));
  return a;
}

// Rows of the kept dimension (out channels of a Conv1d, in channels of a transposed conv) get norm g.
Conv conv(Normal& n, int out, int in, int kernel, bool transposed, float gain) {
  Conv c;
  c.out = out, c.in = in, c.kernel = kernel, c.transposed = transposed;
  const int rows = transposed ? in : out;
  const size_t row_len = size_t(transposed ? out : in) * size_t(kernel);
  c.weight.resize(size_t(rows) * row_len);
  std::vector<float> row(row_len);
  for (int r = 0; r < rows; ++r) {
    double sq = 0;
    for (auto& v : row) {
      v = n.next();
      sq += double(v) * v;
    }
    const float scale = gain * std::exp(0.25f * n.next()) / static_cast<float>(std::sqrt(sq));
    for (size_t j = 0; j < row_len; ++j) c.weight[size_t(r) * row_len + j] = to_bf16(row[j] * scale);
  }
  c.bias.resize(size_t(out));
  for (auto& v : c.bias) v = to_bf16(0.1f * n.next());
  return c;
}
}  // namespace

VocoderConfig vocoder_geometry(const std::string& name) {
  VocoderConfig c = VocoderConfig::full();
  if (name == "full") return c;
  if (name == "mid") {
    c.input_dim = 256;
    c.hidden_dim = 384;
    return c;
  }
  if (name == "tiny") {
    c.latent_channels = 8;
    c.input_dim = 8;
    c.hidden_dim = 32;
    return c;
  }
  throw std::invalid_argument("unknown vocoder geometry '" + name + "' (expected full, mid or tiny)");
}

VocoderWeights synthetic_vocoder_weights(const VocoderConfig& cfg, uint64_t seed) {
  cfg.validate();
  Normal n(seed);
  VocoderWeights w;
  w.cfg = cfg;
  const int k = VocoderConfig::kKernel;
  w.dec_in_proj = conv(n, cfg.input_dim, cfg.stream_channels(), 1, false, 1.0f);
  w.conv_in = conv(n, cfg.hidden_dim, cfg.input_dim, k, false, 1.0f);
  for (int i = 0; i < cfg.blocks(); ++i) {
    UpBlock b;
    const int in = cfg.stage_width(i), out = cfg.stage_width(i + 1);
    b.stride = cfg.ratios[size_t(i)];
    b.alpha = alphas(n, in);
    b.up = conv(n, out, in, 2 * b.stride, true, 1.0f);
    for (int u = 0; u < 3; ++u) {
      b.units[u].dilation = VocoderConfig::kDilations[u];
      b.units[u].alpha1 = alphas(n, out);
      b.units[u].conv1 = conv(n, out, out, k, false, 1.0f);
      b.units[u].alpha2 = alphas(n, out);
      b.units[u].conv2 = conv(n, out, out, 1, false, 0.5f);
    }
    w.blocks.push_back(std::move(b));
  }
  w.alpha_out = alphas(n, cfg.stage_width(cfg.blocks()));
  w.conv_out = conv(n, 1, cfg.stage_width(cfg.blocks()), k, false, 0.1f);
  return w;
}

std::vector<bf16> synthetic_latents(const VocoderConfig& cfg, int64_t length, uint64_t seed) {
  Normal n(seed ^ 0x5A5A5A5A5A5A5A5Aull);
  std::vector<bf16> out(size_t(cfg.latent_channels) * size_t(length));
  for (auto& v : out) v = to_bf16(n.next());
  return out;
}

}  // namespace music3::vocoder
