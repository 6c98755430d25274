// Geometry of the RVQ depth decoder (diffusers MiniMaxMusic3RVQDepthDecoder config).
// Contract: validate() throws naming the field when the geometry cannot be run
// (hidden not divisible by heads, max_positions < codebooks, ...). steps() is the
// number of forward calls per frame (codebooks - 1 = 7 in the release).
// Thread-safety: plain values and pure functions: thread-safe.
#pragma once
#include <cstdint>
#include <string>

namespace music3::io {
class ComponentConfig;
}

namespace music3::depth {

struct DepthConfig {
  int hidden = 4096;
  int layers = 4;
  int heads = 16;
  int intermediate = 6144;
  int vocab = 1024;  // audio_vocab_size: rows per codebook
  int codebooks = 8;
  int max_positions = 16;
  float eps = 1e-6f;          // RMSNorm eps, fixed in the release (not in config.json)
  float cfg_scale = 1.5f;     // _AR_CFG_SCALE
  int top_k = 50;             // _AR_SAMPLING_TOP_K
  int64_t code_offset = 151675;  // _AUDIO_CODE_OFFSET: LM row of semantic code 0

  int head_dim() const { return hidden / heads; }
  int steps() const { return codebooks - 1; }
  int64_t parameter_count() const;
  void validate() const;
  std::string describe() const;

  static DepthConfig full();  // the release geometry (= the class defaults)
  // Synthetic geometries by name: "full"; "mid" (a quarter of the widths, all 4 layers:
  // the host arm's bench geometry); "tiny" (the embedded default's shape). Throws
  // std::invalid_argument naming an unknown name.
  static DepthConfig named(const std::string& name);
  static DepthConfig from_component_config(const io::ComponentConfig& c);
};

}  // namespace music3::depth
