#include "engine/models/music3/lm/lm_weights.h"

namespace music3::lm {

size_t LmWeights::bytes() const {
  size_t n = embed.bytes() + norm.bytes() + head_eos.bytes() + head_codes.bytes();
  for (const auto& l : layers)
    for (const HostTensor* t : {&l.input_norm, &l.post_norm, &l.q_norm, &l.k_norm, &l.wq, &l.wk, &l.wv, &l.wo,
                                &l.w_gate, &l.w_up, &l.w_down})
      n += t->bytes();
  return n;
}

std::vector<LmTensorSpec> LmWeights::expected_tensors(const LmConfig& c) {
  const int64_t H = c.hidden, I = c.intermediate, Q = c.q_width(), KV = c.kv_width(), D = c.head_dim;
  std::vector<LmTensorSpec> v{{"model.embed_tokens.weight", {c.vocab, H}},
                              {"model.norm.weight", {H}},
                              {"lm_head.weight", {c.vocab, H}}};
  for (int l = 0; l < c.layers; ++l) {
    const std::string p = "model.layers." + std::to_string(l) + ".";
    v.push_back({p + "input_layernorm.weight", {H}});
    v.push_back({p + "post_attention_layernorm.weight", {H}});
    v.push_back({p + "self_attn.q_norm.weight", {D}});
    v.push_back({p + "self_attn.k_norm.weight", {D}});
    v.push_back({p + "self_attn.q_proj.weight", {Q, H}});
    v.push_back({p + "self_attn.k_proj.weight", {KV, H}});
    v.push_back({p + "self_attn.v_proj.weight", {KV, H}});
    v.push_back({p + "self_attn.o_proj.weight", {H, Q}});
    v.push_back({p + "mlp.gate_proj.weight", {I, H}});
    v.push_back({p + "mlp.up_proj.weight", {I, H}});
    v.push_back({p + "mlp.down_proj.weight", {H, I}});
  }
  return v;
}

}  // namespace music3::lm
