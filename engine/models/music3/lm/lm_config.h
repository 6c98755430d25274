// Geometry of the Qwen3 language model (transformers Qwen3ForCausalLM config.json,
// v5 schema with `rope_parameters`).
// Contract: from_file() reads config.json and refuses, naming the file and the key:
// a missing rope theta (neither rope_parameters.rope_theta nor a top-level
// rope_theta: transformers 4.x silently falls back to 10,000 while the model needs
// 1e6, so the engine never defaults it), a rope_type other than "default", an
// activation other than silu, attention biases, sliding windows, tied embeddings, a
// head count not divisible by the K/V head count, and a vocabulary smaller than
// 168,059 (the ids the AR loop hard-codes). head_dim defaults to hidden / heads as in
// transformers. Plain data: thread-safe.
#pragma once
#include <cstdint>
#include <string>

namespace music3::lm {

struct LmConfig {
  int64_t vocab = 200000;
  int hidden = 4096;
  int intermediate = 12288;
  int layers = 36;
  int heads = 32;
  int kv_heads = 8;
  int head_dim = 128;
  float eps = 1e-6f;
  double rope_theta = 1e6;
  int64_t max_positions = 10240;  // informational: default RoPE has no limit

  int q_width() const { return heads * head_dim; }
  int kv_width() const { return kv_heads * head_dim; }
  int group() const { return heads / kv_heads; }
  void validate(const std::string& where) const;
  std::string describe() const;

  static LmConfig full();  // the release geometry (hub config)
  static LmConfig from_file(const std::string& config_json);
};

}  // namespace music3::lm
