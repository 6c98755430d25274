// Geometry of the flow-matching DiT (diffusers MiniMaxMusic3Transformer1DModel config.json).
// Contract: from_component_config() requires _class_name MiniMaxMusic3Transformer1DModel and throws naming the
// file and the field for a value out of range; validate() refuses a geometry upstream cannot run (an odd
// rotary_dim or one wider than the head, an odd fourier_embedding_dim). concat_channels() = 2 * in_channels +
// condition_dim (the preprocess input [x, zeros, cond^T]); inner() = heads * head_dim. The rotary theta is
// upstream's fixed 10000. Plain data: thread-safe.
#pragma once
#include <cstdint>
#include <string>

namespace music3::io {
class ComponentConfig;
}

namespace music3::acoustic {

struct DitConfig {
  int in_channels = 128;
  int condition_dim = 2048;
  int layers = 36;
  int heads = 32;
  int head_dim = 64;
  int ff_inner = 8192;
  int rotary_dim = 32;
  int fourier_dim = 256;

  static constexpr float kRotaryTheta = 10000.0f;
  static constexpr float kNormEps = 1e-5f;  // nn.LayerNorm's default

  int inner() const { return heads * head_dim; }
  int concat_channels() const { return 2 * in_channels + condition_dim; }
  void validate() const;
  std::string describe() const;

  static DitConfig full();  // the release geometry (= the class defaults)
  static DitConfig from_component_config(const io::ComponentConfig& c);
};

}  // namespace music3::acoustic
