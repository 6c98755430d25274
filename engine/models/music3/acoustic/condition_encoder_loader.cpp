#include "engine/models/music3/acoustic/condition_encoder_loader.h"

#include <filesystem>

#include "engine/io/component_config.h"
#include "engine/io/safetensors_set.h"

namespace music3::acoustic {
namespace fs = std::filesystem;

std::vector<TensorSpec> condition_encoder_tensors(const ConditionEncoderConfig& cfg) {
  return {{"layer_weight_logits", Shape{cfg.layers}},
          {"layer_scale", Shape{1}},
          {"proj.weight", Shape{cfg.out_dim, cfg.hidden, ConditionEncoderConfig::kKernel}},
          {"proj.bias", Shape{cfg.out_dim}}};
}

ConditionEncoderWeights load_condition_encoder(const std::string& dir, AcousticLoadReport* report) {
  const std::string comp = component_folder(dir, "condition_encoder");
  ConditionEncoderWeights w;
  w.cfg = ConditionEncoderConfig::from_component_config(io::ComponentConfig((fs::path(comp) / "config.json").string()));
  const io::SafetensorsSet set = io::SafetensorsSet::open(comp, "diffusion_pytorch_model");
  TensorReader r(set, condition_encoder_tensors(w.cfg));
  w.logits = r.take("layer_weight_logits");
  w.scale = r.take("layer_scale");
  w.proj_w = r.take("proj.weight");
  w.proj_b = r.take("proj.bias");
  if (report) *report = {set.path(), set.sha256(), set.files().size(), r.taken(), r.converted()};
  return w;
}

}  // namespace music3::acoustic
