#include "engine/models/music3/acoustic/dit_loader.h"

#include <filesystem>

#include "engine/io/component_config.h"
#include "engine/io/safetensors_set.h"

namespace music3::acoustic {
namespace fs = std::filesystem;

DitWeights load_dit(const std::string& dir, AcousticLoadReport* report) {
  const std::string comp = component_folder(dir, "transformer");
  DitWeights w;
  w.cfg = DitConfig::from_component_config(io::ComponentConfig((fs::path(comp) / "config.json").string()));
  const io::SafetensorsSet set = io::SafetensorsSet::open(comp, "diffusion_pytorch_model");
  TensorReader r(set, dit_tensors(w.cfg));
  w.time_proj = r.take("time_proj.weight");
  w.lin1_w = r.take("time_embed.linear_1.weight");
  w.lin1_b = r.take("time_embed.linear_1.bias");
  w.lin2_w = r.take("time_embed.linear_2.weight");
  w.lin2_b = r.take("time_embed.linear_2.bias");
  w.pre_conv = r.take("preprocess_conv.weight");
  w.proj_in = r.take("proj_in.weight");
  w.blocks.resize(size_t(w.cfg.layers));
  for (int i = 0; i < w.cfg.layers; ++i) {
    const std::string p = dit_block_prefix(i);
    auto& b = w.blocks[size_t(i)];
    b.norm1_w = r.take(p + "norm1.weight");
    b.norm1_b = r.take(p + "norm1.bias");
    b.wq = r.take(p + "attn.to_q.weight");
    b.wk = r.take(p + "attn.to_k.weight");
    b.wv = r.take(p + "attn.to_v.weight");
    b.wo = r.take(p + "attn.to_out.0.weight");
    b.norm2_w = r.take(p + "norm2.weight");
    b.norm2_b = r.take(p + "norm2.bias");
    b.ff_in_w = r.take(p + "ff_in.weight");
    b.ff_in_b = r.take(p + "ff_in.bias");
    b.ff_out_w = r.take(p + "ff_out.weight");
    b.ff_out_b = r.take(p + "ff_out.bias");
  }
  w.proj_out = r.take("proj_out.weight");
  w.post_conv = r.take("postprocess_conv.weight");
  if (report) *report = {set.path(), set.sha256(), set.files().size(), r.taken(), r.converted()};
  return w;
}

}  // namespace music3::acoustic
