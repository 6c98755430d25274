// Geometry of the condition encoder (diffusers MiniMaxMusic3ConditionEncoder config.json).
// Contract: from_component_config() requires _class_name MiniMaxMusic3ConditionEncoder and throws naming the file
// and the field for a value out of range. latent_length(n) is upstream's
// max(1, int(n * output_rate / input_rate * input_hop / output_hop)) in Python float (f64) arithmetic evaluated
// left to right (200 -> 689, 150 -> 516, 50 -> 172, 5 -> 17). frame_width() is the input row width
// layers * hidden. Plain data: thread-safe.
#pragma once
#include <cstdint>
#include <string>

namespace music3::io {
class ComponentConfig;
}

namespace music3::acoustic {

struct ConditionEncoderConfig {
  int hidden = 4096;      // condition_hidden_dim
  int layers = 8;         // num_condition_layers
  int out_dim = 2048;     // out_dim (the DiT's condition_dim)
  int input_rate = 24000, input_hop = 960;
  int output_rate = 44100, output_hop = 512;

  static constexpr int kKernel = 3;  // proj: Conv1d(hidden, out_dim, 3, padding=1)

  int64_t frame_width() const { return int64_t(layers) * hidden; }
  int64_t latent_length(int64_t frames) const;
  void validate() const;
  std::string describe() const;

  static ConditionEncoderConfig from_component_config(const io::ComponentConfig& c);
};

}  // namespace music3::acoustic
