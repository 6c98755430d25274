#include "engine/models/music3/acoustic/dit_config.h"

#include <stdexcept>

#include "engine/io/component_config.h"

namespace music3::acoustic {

DitConfig DitConfig::full() { return DitConfig{}; }

void DitConfig::validate() const {
  auto fail = [&](const std::string& what) { throw std::runtime_error("transformer config " + describe() + ": " + what); };
  if (in_channels < 1 || condition_dim < 1 || layers < 1 || heads < 1 || head_dim < 1 || ff_inner < 1)
    fail("widths and counts must be positive");
  if (rotary_dim < 2 || rotary_dim % 2 || rotary_dim > head_dim)
    fail("rotary_dim must be even, at least 2 and at most attention_head_dim");
  if (fourier_dim < 2 || fourier_dim % 2) fail("fourier_embedding_dim must be even (cos and sin halves)");
}

std::string DitConfig::describe() const {
  return "{in_channels " + std::to_string(in_channels) + ", condition_dim " + std::to_string(condition_dim) +
         ", num_layers " + std::to_string(layers) + ", heads " + std::to_string(heads) + " x " +
         std::to_string(head_dim) + ", ff_inner_dim " + std::to_string(ff_inner) + ", rotary_dim " +
         std::to_string(rotary_dim) + ", fourier_embedding_dim " + std::to_string(fourier_dim) + "}";
}

DitConfig DitConfig::from_component_config(const io::ComponentConfig& c) {
  if (c.class_name() != "MiniMaxMusic3Transformer1DModel")
    throw std::runtime_error(c.path() + ": _class_name is '" + c.class_name() +
                             "', expected 'MiniMaxMusic3Transformer1DModel'");
  DitConfig v;
  auto field = [&](const char* key, int fallback) {
    const int64_t x = c.get_int_or(key, fallback);
    if (x <= 0 || x > (1 << 20))
      throw std::runtime_error(c.path() + ": " + key + " = " + std::to_string(x) + " is out of range");
    return static_cast<int>(x);
  };
  v.in_channels = field("in_channels", v.in_channels);
  v.condition_dim = field("condition_dim", v.condition_dim);
  v.layers = field("num_layers", v.layers);
  v.heads = field("num_attention_heads", v.heads);
  v.head_dim = field("attention_head_dim", v.head_dim);
  v.ff_inner = field("ff_inner_dim", v.ff_inner);
  v.rotary_dim = field("rotary_dim", v.rotary_dim);
  v.fourier_dim = field("fourier_embedding_dim", v.fourier_dim);
  v.validate();
  return v;
}

}  // namespace music3::acoustic
