#include "engine/models/music3/depth/depth_weights.h"

namespace music3::depth {

DepthWeights DepthWeights::allocate(const DepthConfig& cfg) {
  cfg.validate();
  DepthWeights w;
  w.cfg = cfg;
  for (auto& [spec, slot] : w.named()) *slot = HostTensor(spec.shape);
  return w;
}

DepthWeights DepthWeights::shapes(const DepthConfig& cfg) {
  cfg.validate();
  DepthWeights w;
  w.cfg = cfg;
  for (auto& [spec, slot] : w.named()) slot->shape = spec.shape;
  return w;
}

std::vector<std::pair<TensorSpec, HostTensor*>> DepthWeights::named() {
  const int64_t H = cfg.hidden, I = cfg.intermediate, V = cfg.vocab;
  layers.resize(static_cast<size_t>(cfg.layers));
  heads.resize(static_cast<size_t>(cfg.steps()));
  std::vector<std::pair<TensorSpec, HostTensor*>> out;
  out.push_back({{"audio_embeddings.weight", {int64_t(cfg.steps()) * V, H}}, &audio_embeddings});
  out.push_back({{"projection.weight", {H, H}}, &projection});
  out.push_back({{"pos_embedding.weight", {cfg.max_positions, H}}, &pos_embedding});
  for (int l = 0; l < cfg.layers; ++l) {
    auto& L = layers[static_cast<size_t>(l)];
    std::string p = "layers." + std::to_string(l) + ".";
    out.push_back({{p + "input_layernorm.weight", {H}}, &L.input_norm});
    out.push_back({{p + "attn.to_q.weight", {H, H}}, &L.wq});
    out.push_back({{p + "attn.to_k.weight", {H, H}}, &L.wk});
    out.push_back({{p + "attn.to_v.weight", {H, H}}, &L.wv});
    out.push_back({{p + "attn.to_out.weight", {H, H}}, &L.wo});
    out.push_back({{p + "post_attention_layernorm.weight", {H}}, &L.post_norm});
    out.push_back({{p + "gate_proj.weight", {I, H}}, &L.w_gate});
    out.push_back({{p + "up_proj.weight", {I, H}}, &L.w_up});
    out.push_back({{p + "down_proj.weight", {H, I}}, &L.w_down});
  }
  out.push_back({{"norm.weight", {H}}, &norm});
  for (int k = 0; k < cfg.steps(); ++k)
    out.push_back({{"audio_heads." + std::to_string(k) + ".weight", {V, H}}, &heads[static_cast<size_t>(k)]});
  return out;
}

std::vector<TensorSpec> DepthWeights::expected_tensors(const DepthConfig& cfg) {
  DepthWeights scratch;
  scratch.cfg = cfg;
  std::vector<TensorSpec> specs;
  for (auto& [spec, slot] : scratch.named()) specs.push_back(spec);
  return specs;
}

size_t DepthWeights::bytes() const {
  size_t b = audio_embeddings.bytes() + projection.bytes() + pos_embedding.bytes() + norm.bytes();
  for (const auto& h : heads) b += h.bytes();
  for (const auto& L : layers)
    b += L.input_norm.bytes() + L.post_norm.bytes() + L.wq.bytes() + L.wk.bytes() + L.wv.bytes() + L.wo.bytes() +
         L.w_gate.bytes() + L.w_up.bytes() + L.w_down.bytes();
  return b;
}

}  // namespace music3::depth
