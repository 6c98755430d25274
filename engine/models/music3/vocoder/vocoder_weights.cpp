#include "engine/models/music3/vocoder/vocoder_weights.h"

namespace music3::vocoder {

namespace {
size_t conv_bytes(const Conv& c) { return (c.weight.size() + c.bias.size()) * sizeof(bf16); }

void add_wn_conv(std::vector<TensorSpec>& out, const std::string& prefix, int64_t d0, int64_t d1, int64_t k,
                 int64_t bias) {
  out.push_back({prefix + ".weight_g", Shape{d0, 1, 1}});
  out.push_back({prefix + ".weight_v", Shape{d0, d1, k}});
  out.push_back({prefix + ".bias", Shape{bias}});
}
}  // namespace

size_t VocoderWeights::bytes() const {
  size_t n = conv_bytes(dec_in_proj) + conv_bytes(conv_in) + conv_bytes(conv_out) + alpha_out.size() * sizeof(bf16);
  for (const auto& b : blocks) {
    n += conv_bytes(b.up) + b.alpha.size() * sizeof(bf16);
    for (const auto& u : b.units) n += conv_bytes(u.conv1) + conv_bytes(u.conv2) + (u.alpha1.size() + u.alpha2.size()) * sizeof(bf16);
  }
  return n;
}

std::vector<TensorSpec> expected_tensors(const VocoderConfig& cfg) {
  std::vector<TensorSpec> out;
  const int64_t d = cfg.input_dim, h = cfg.hidden_dim, k = VocoderConfig::kKernel;
  out.push_back({"dec_in_proj.weight", Shape{d, cfg.stream_channels(), 1}});
  out.push_back({"dec_in_proj.bias", Shape{d}});
  add_wn_conv(out, "conv_in", h, d, k, h);
  for (int i = 0; i < cfg.blocks(); ++i) {
    const std::string b = "blocks." + std::to_string(i);
    const int64_t in = cfg.stage_width(i), o = cfg.stage_width(i + 1), s = cfg.ratios[static_cast<size_t>(i)];
    out.push_back({b + ".snake1.alpha", Shape{1, in, 1}});
    add_wn_conv(out, b + ".conv_t1", in, o, 2 * s, o);
    for (int u = 1; u <= 3; ++u) {
      const std::string r = b + ".res_unit" + std::to_string(u);
      out.push_back({r + ".snake1.alpha", Shape{1, o, 1}});
      add_wn_conv(out, r + ".conv1", o, o, k, o);
      out.push_back({r + ".snake2.alpha", Shape{1, o, 1}});
      add_wn_conv(out, r + ".conv2", o, o, 1, o);
    }
  }
  const int64_t w = cfg.stage_width(cfg.blocks());
  out.push_back({"snake_out.alpha", Shape{1, w, 1}});
  add_wn_conv(out, "conv_out", 1, w, k, 1);
  return out;
}

}  // namespace music3::vocoder
