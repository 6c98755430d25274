// Resident vocoder weights in bf16 storage, with the weight norm already folded.
// Contract: Conv::weight is laid out as torch stores it: [out][in][kernel] for a Conv1d, [in][out][kernel] for
// a ConvTranspose1d (Conv::transposed); bias has `out` entries. Snake alphas have one entry per channel.
// expected_tensors(cfg) lists every diffusers tensor name of the checkpoint with its shape, in load order.
// Immutable after load: safe to read from any number of threads.
#pragma once
#include <string>
#include <vector>

#include "engine/core/bf16.h"
#include "engine/core/tensor.h"
#include "engine/models/music3/vocoder/vocoder_config.h"

namespace music3::vocoder {

struct Conv {
  int out = 0, in = 0, kernel = 0;
  bool transposed = false;
  std::vector<bf16> weight;
  std::vector<bf16> bias;
};

struct ResidualUnit {
  int dilation = 1;
  std::vector<bf16> alpha1, alpha2;
  Conv conv1, conv2;  // k7 dilated, k1
};

struct UpBlock {
  int stride = 1;
  std::vector<bf16> alpha;  // Snake before the transposed conv
  Conv up;                  // ConvTranspose1d, kernel 2*stride
  ResidualUnit units[3];
};

struct VocoderWeights {
  VocoderConfig cfg;
  Conv dec_in_proj, conv_in;
  std::vector<UpBlock> blocks;
  std::vector<bf16> alpha_out;
  Conv conv_out;

  size_t bytes() const;
};

struct TensorSpec {
  std::string name;
  Shape shape;
};
std::vector<TensorSpec> expected_tensors(const VocoderConfig& cfg);

}  // namespace music3::vocoder
