// Gate vocoder.host_math: the vocoder's host kernels (engine/models/music3/vocoder/vocoder_host_math.h) against known
// answers computed by torch and diffusers on the pinned CPU paths (oracle_bridge/host_math/generate.py, committed in
// oracle_bridge/goldens/host_math/vocoder.safetensors):
//  - conv1d 8 -> 6 channels, kernel 7, dilation 3, padding 9, T 20, + bias, against F.conv1d;
//  - conv_transpose1d 8 -> 6 channels, kernel 4, stride 2, padding 1, T 5, + bias, against F.conv_transpose1d;
//  - snake_inplace over [6, 16] with per-channel alpha, against diffusers' MiniMaxMusic3Snake1d;
//  - tanh_inplace over 40 values against torch.tanh; add_inplace over 32 against the bf16 sum.
// Bounds (worst bf16 ULP | zero bucket, in ULPs of the row RMS): measured correct worst 0 | 0 on every case (fixed
// inputs, deterministic code), so every bound is 0: exact. Tightest catalogued mutations (mutations/catalogue/
// vocoder.json, by hand and in the battery): vocoder-host-snake-sin-argument-unrounded, snake worst 4 ULP (16 of 96
// values differ); vocoder-host-conv-dilation-ignored, conv1d worst 13430 ULP (every value differs).
#include <gtest/gtest.h>

#include "engine/models/music3/vocoder/vocoder_host_math.h"
#include "gates/lib/host_math_golden.h"

namespace music3::gates {
namespace {

vocoder::Conv golden_conv(const io::SafetensorsFile& g, const std::string& prefix, int out, int in, int kernel,
                          bool transposed) {
  vocoder::Conv c;
  c.out = out;
  c.in = in;
  c.kernel = kernel;
  c.transposed = transposed;
  c.weight = golden_bf16(g, prefix + ".w");
  c.bias = golden_bf16(g, prefix + ".b");
  return c;
}

vocoder::Activation golden_activation(const io::SafetensorsFile& g, const std::string& name, int channels) {
  vocoder::Activation a;
  a.data = golden_bf16(g, name);
  a.channels = channels;
  a.time = static_cast<int64_t>(a.data.size()) / channels;
  return a;
}

TEST(VocoderHostMath, DilatedConv1dMatchesTorch) {
  const io::SafetensorsFile g = host_math_golden("vocoder");
  const vocoder::Activation y =
      vocoder::conv1d(golden_activation(g, "conv.x", 8), golden_conv(g, "conv", 6, 8, 7, false), 3, 9, 1);
  EXPECT_EQ(y.channels, 6);
  EXPECT_EQ(y.time, 20);
  expect_matches("vocoder conv1d", y.data, golden_bf16(g, "conv.y"), 0, 0);
}

TEST(VocoderHostMath, ConvTranspose1dMatchesTorch) {
  const io::SafetensorsFile g = host_math_golden("vocoder");
  const vocoder::Activation y =
      vocoder::conv_transpose1d(golden_activation(g, "convt.x", 8), golden_conv(g, "convt", 6, 8, 4, true), 2, 1, 1);
  EXPECT_EQ(y.channels, 6);
  EXPECT_EQ(y.time, 10);
  expect_matches("vocoder conv_transpose1d", y.data, golden_bf16(g, "convt.y"), 0, 0);
}

TEST(VocoderHostMath, SnakeMatchesDiffusers) {
  const io::SafetensorsFile g = host_math_golden("vocoder");
  vocoder::Activation x = golden_activation(g, "snake.x", 6);
  vocoder::snake_inplace(x, golden_bf16(g, "snake.alpha"), 1);
  expect_matches("vocoder snake", x.data, golden_bf16(g, "snake.y"), 0, 0);
}

TEST(VocoderHostMath, TanhAndResidualAddMatchTorch) {
  const io::SafetensorsFile g = host_math_golden("vocoder");
  vocoder::Activation t = golden_activation(g, "tanh.x", 1);
  vocoder::tanh_inplace(t);
  expect_matches("vocoder tanh", t.data, golden_bf16(g, "tanh.y"), 0, 0);
  vocoder::Activation a = golden_activation(g, "add.a", 1);
  vocoder::add_inplace(a, golden_activation(g, "add.b", 1));
  expect_matches("vocoder add", a.data, golden_bf16(g, "add.y"), 0, 0);
}

}  // namespace
}  // namespace music3::gates
