#include "engine/models/music3/acoustic/dit_weights.h"

namespace music3::acoustic {

std::string dit_block_prefix(int i) { return "transformer_blocks." + std::to_string(i) + "."; }

size_t DitWeights::bytes() const {
  size_t n = time_proj.bytes() + lin1_w.bytes() + lin1_b.bytes() + lin2_w.bytes() + lin2_b.bytes() +
             pre_conv.bytes() + proj_in.bytes() + proj_out.bytes() + post_conv.bytes();
  for (const auto& b : blocks)
    n += b.norm1_w.bytes() + b.norm1_b.bytes() + b.wq.bytes() + b.wk.bytes() + b.wv.bytes() + b.wo.bytes() +
         b.norm2_w.bytes() + b.norm2_b.bytes() + b.ff_in_w.bytes() + b.ff_in_b.bytes() + b.ff_out_w.bytes() +
         b.ff_out_b.bytes();
  return n;
}

std::vector<TensorSpec> dit_tensors(const DitConfig& cfg) {
  const int64_t d = cfg.inner(), c2 = cfg.concat_channels(), f = cfg.fourier_dim, ff = cfg.ff_inner;
  const int64_t c = cfg.in_channels;
  std::vector<TensorSpec> out = {{"time_proj.weight", Shape{f / 2, 1}},
                                 {"time_embed.linear_1.weight", Shape{d, f}},
                                 {"time_embed.linear_1.bias", Shape{d}},
                                 {"time_embed.linear_2.weight", Shape{d, d}},
                                 {"time_embed.linear_2.bias", Shape{d}},
                                 {"preprocess_conv.weight", Shape{c2, c2, 1}},
                                 {"proj_in.weight", Shape{d, c2}}};
  for (int i = 0; i < cfg.layers; ++i) {
    const std::string p = dit_block_prefix(i);
    for (const char* n : {"norm1.weight", "norm1.bias"}) out.push_back({p + n, Shape{d}});
    for (const char* n : {"attn.to_q.weight", "attn.to_k.weight", "attn.to_v.weight", "attn.to_out.0.weight"})
      out.push_back({p + n, Shape{d, d}});
    for (const char* n : {"norm2.weight", "norm2.bias"}) out.push_back({p + n, Shape{d}});
    out.push_back({p + "ff_in.weight", Shape{2 * ff, d}});
    out.push_back({p + "ff_in.bias", Shape{2 * ff}});
    out.push_back({p + "ff_out.weight", Shape{d, ff}});
    out.push_back({p + "ff_out.bias", Shape{d}});
  }
  out.push_back({"proj_out.weight", Shape{c, d}});
  out.push_back({"postprocess_conv.weight", Shape{c, c, 1}});
  return out;
}

}  // namespace music3::acoustic
