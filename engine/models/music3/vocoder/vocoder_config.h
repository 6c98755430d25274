// Geometry of the vocoder (diffusers MiniMaxMusic3Vocoder config.json).
// Contract: validate() throws naming the field when the geometry cannot be run (odd latent_channels: the two
// stereo streams need equal halves; a hidden width that does not halve once per up-block; a ratio < 1).
// stage_width(i) is the width entering up-block i (stage_width(blocks) leaves the last one); hop() is the
// product of the ratios (samples per latent, 512 in the release); output_length(L) is the exact per-stream
// sample count upstream produces for L latents (each transposed conv maps n to n*s + s - 2*ceil(s/2)).
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace music3::io {
class ComponentConfig;
}

namespace music3::vocoder {

struct VocoderConfig {
  int latent_channels = 128;
  int input_dim = 1024;   // decoder_input_dim: dec_in_proj's output width
  int hidden_dim = 1536;  // decoder_hidden_dim: conv_in's output width
  std::vector<int> ratios = {8, 8, 4, 2};
  int sampling_rate = 44100;

  static constexpr int kKernel = 7;                   // conv_in, residual conv1, conv_out
  static constexpr int kDilations[3] = {1, 3, 9};     // the residual units of every block

  int stream_channels() const { return latent_channels / 2; }
  int blocks() const { return static_cast<int>(ratios.size()); }
  int stage_width(int i) const { return hidden_dim >> i; }
  int64_t hop() const;
  int64_t output_length(int64_t latents) const;
  void validate() const;
  std::string describe() const;

  static VocoderConfig full();  // the release geometry (= the class defaults)
  static VocoderConfig from_component_config(const io::ComponentConfig& c);
};

// Upstream's padding of a transposed conv with stride s (kernel 2s): ceil(s/2).
int transposed_padding(int stride);

}  // namespace music3::vocoder
