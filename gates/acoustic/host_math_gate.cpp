// Gate acoustic.host_math: the DiT's host kernels (engine/models/music3/acoustic/dit_host_math.h) against known
// answers computed by torch on the pinned CPU paths (oracle_bridge/host_math/generate.py, committed in
// oracle_bridge/goldens/host_math/dit.safetensors):
//  - layer_norm [5, 48], eps 1e-6, against F.layer_norm;
//  - linear [3, 40] x [24, 40] + bias against F.linear (K = 40: inside torch_dot's measured bit-exact range);
//  - conv_taps 40 -> 12 channels, kernel 3, T 9, + bias against F.conv1d (padding 1);
//  - attention [6 positions][2 heads][16], scale 16^-0.5, against F.scaled_dot_product_attention.
// Bounds (worst bf16 ULP | zero bucket): measured correct worst 0 | 0 on every case; bound 0 (exact) for each, the
// contract being bit-exactness with torch on these shapes.
#include <gtest/gtest.h>

#include "engine/models/music3/acoustic/dit_host_math.h"
#include "gates/lib/host_math_golden.h"

namespace music3::gates {
namespace {
namespace host = acoustic::host;

TEST(DitHostMath, LayerNormMatchesTorch) {
  const io::SafetensorsFile g = host_math_golden("dit");
  const std::vector<bf16> x = golden_bf16(g, "ln.x"), w = golden_bf16(g, "ln.w"), b = golden_bf16(g, "ln.b");
  std::vector<bf16> y(x.size());
  host::layer_norm(x.data(), 5, 48, w.data(), b.data(), 1e-6f, y.data());
  expect_matches("dit layer_norm", y, golden_bf16(g, "ln.y"), 0, 0);
}

TEST(DitHostMath, LinearMatchesTorch) {
  const io::SafetensorsFile g = host_math_golden("dit");
  const std::vector<bf16> x = golden_bf16(g, "linear.x"), w = golden_bf16(g, "linear.w"), b = golden_bf16(g, "linear.b");
  std::vector<bf16> y(3 * 24);
  host::linear(x.data(), 3, w.data(), 24, 40, b.data(), y.data(), 1);
  expect_matches("dit linear", y, golden_bf16(g, "linear.y"), 0, 0);
}

TEST(DitHostMath, ConvTapsMatchesTorch) {
  const io::SafetensorsFile g = host_math_golden("dit");
  const std::vector<bf16> x = golden_bf16(g, "conv.x"), w = golden_bf16(g, "conv.w"), b = golden_bf16(g, "conv.b");
  std::vector<bf16> y(12 * 9);
  host::conv_taps(x.data(), 40, 9, w.data(), 12, 3, b.data(), y.data(), 1);
  expect_matches("dit conv_taps", y, golden_bf16(g, "conv.y"), 0, 0);
}

TEST(DitHostMath, AttentionMatchesTorch) {
  const io::SafetensorsFile g = host_math_golden("dit");
  const std::vector<bf16> q = golden_bf16(g, "attn.q"), k = golden_bf16(g, "attn.k"), v = golden_bf16(g, "attn.v");
  std::vector<bf16> out(q.size());
  host::attention(q.data(), k.data(), v.data(), 6, 2, 16, 0.25f, out.data(), 1);
  expect_matches("dit attention", out, golden_bf16(g, "attn.out"), 0, 0);
}

}  // namespace
}  // namespace music3::gates
