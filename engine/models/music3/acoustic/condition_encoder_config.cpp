#include "engine/models/music3/acoustic/condition_encoder_config.h"

#include <stdexcept>

#include "engine/io/component_config.h"

namespace music3::acoustic {

int64_t ConditionEncoderConfig::latent_length(int64_t frames) const {
  // Python: num_frames * output_sampling_rate / input_sampling_rate * input_hop_length / output_hop_length.
  const double v = double(frames) * double(output_rate) / double(input_rate) * double(input_hop) / double(output_hop);
  const int64_t l = static_cast<int64_t>(v);
  return l < 1 ? 1 : l;
}

void ConditionEncoderConfig::validate() const {
  auto fail = [&](const std::string& what) {
    throw std::runtime_error("condition encoder config " + describe() + ": " + what);
  };
  if (hidden < 1 || layers < 1 || out_dim < 1) fail("widths and the layer count must be positive");
  if (input_rate < 1 || input_hop < 1 || output_rate < 1 || output_hop < 1) fail("rates and hops must be positive");
}

std::string ConditionEncoderConfig::describe() const {
  return "{condition_hidden_dim " + std::to_string(hidden) + ", num_condition_layers " + std::to_string(layers) +
         ", out_dim " + std::to_string(out_dim) + ", rates " + std::to_string(input_rate) + "/" +
         std::to_string(input_hop) + " -> " + std::to_string(output_rate) + "/" + std::to_string(output_hop) + "}";
}

ConditionEncoderConfig ConditionEncoderConfig::from_component_config(const io::ComponentConfig& c) {
  if (c.class_name() != "MiniMaxMusic3ConditionEncoder")
    throw std::runtime_error(c.path() + ": _class_name is '" + c.class_name() +
                             "', expected 'MiniMaxMusic3ConditionEncoder'");
  ConditionEncoderConfig v;
  auto field = [&](const char* key, int fallback) {
    const int64_t x = c.get_int_or(key, fallback);
    if (x <= 0 || x > (1 << 20))
      throw std::runtime_error(c.path() + ": " + key + " = " + std::to_string(x) + " is out of range");
    return static_cast<int>(x);
  };
  v.hidden = field("condition_hidden_dim", v.hidden);
  v.layers = field("num_condition_layers", v.layers);
  v.out_dim = field("out_dim", v.out_dim);
  v.input_rate = field("input_sampling_rate", v.input_rate);
  v.input_hop = field("input_hop_length", v.input_hop);
  v.output_rate = field("output_sampling_rate", v.output_rate);
  v.output_hop = field("output_hop_length", v.output_hop);
  v.validate();
  return v;
}

}  // namespace music3::acoustic
