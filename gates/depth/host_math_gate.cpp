// Gate depth.host_math: the depth stage's host kernels (engine/runtime/host_math.h, the arithmetic of the depth host
// arm) against known answers computed by torch and diffusers on the pinned CPU paths
// (oracle_bridge/host_math/generate.py, committed in oracle_bridge/goldens/host_math/depth.safetensors):
//  - linear [3, 40] x [24, 40] (no bias) against F.linear;
//  - rms_norm [4, 48], eps 1e-6, bf16 weight, against diffusers' RMSNorm (the depth decoder's norm);
//  - silu_mul over [3, 32] against F.silu(g) * u; add over 64 against the bf16 sum;
//  - attend: the last query row (4 heads of 16) over 7 keys against causal F.scaled_dot_product_attention.
// Bounds (worst bf16 ULP | zero bucket, in ULPs of the row RMS): measured correct worst 0 | 0 on every case (fixed
// inputs, deterministic code), so every bound is 0: exact. Tightest catalogued mutations (mutations/catalogue/
// depth.json, by hand and in the battery): host-attention-denominator-of-rounded-p, attend worst 1 ULP (1 of 64
// values differs); host-rmsnorm-mean-over-h-minus-one, rms_norm worst 4 ULP (every value differs).
#include <gtest/gtest.h>

#include <cmath>

#include "engine/runtime/host_math.h"
#include "gates/lib/host_math_golden.h"

namespace music3::gates {
namespace {
namespace host = runtime::host;

TEST(DepthHostMath, LinearMatchesTorch) {
  const io::SafetensorsFile g = host_math_golden("depth");
  const std::vector<bf16> x = golden_bf16(g, "linear.x"), w = golden_bf16(g, "linear.w");
  std::vector<bf16> y(3 * 24);
  host::linear(x.data(), 3, w.data(), 24, 40, y.data(), 1);
  expect_matches("depth linear", y, golden_bf16(g, "linear.y"), 0, 0);
}

TEST(DepthHostMath, RmsNormMatchesDiffusers) {
  const io::SafetensorsFile g = host_math_golden("depth");
  const std::vector<bf16> x = golden_bf16(g, "rms.x"), w = golden_bf16(g, "rms.w");
  std::vector<bf16> y(x.size());
  host::rms_norm(x.data(), 4, w.data(), 48, 1e-6f, y.data());
  expect_matches("depth rms_norm", y, golden_bf16(g, "rms.y"), 0, 0);
}

TEST(DepthHostMath, SiluMulAndAddMatchTorch) {
  const io::SafetensorsFile g = host_math_golden("depth");
  const std::vector<bf16> gate = golden_bf16(g, "silu.g"), up = golden_bf16(g, "silu.u");
  std::vector<bf16> y(gate.size());
  host::silu_mul(gate.data(), up.data(), 3, 32, y.data());
  expect_matches("depth silu_mul", y, golden_bf16(g, "silu.y"), 0, 0);
  const std::vector<bf16> a = golden_bf16(g, "add.a"), b = golden_bf16(g, "add.b");
  std::vector<bf16> sum(a.size());
  host::add(a.data(), b.data(), static_cast<int64_t>(a.size()), sum.data());
  expect_matches("depth add", sum, golden_bf16(g, "add.y"), 0, 0);
}

TEST(DepthHostMath, LastRowAttentionMatchesTorch) {
  const io::SafetensorsFile g = host_math_golden("depth");
  const std::vector<bf16> q = golden_bf16(g, "attn.q"), k = golden_bf16(g, "attn.k"), v = golden_bf16(g, "attn.v");
  std::vector<bf16> out(q.size());
  host::attend(q.data(), k.data(), v.data(), 7, 4, 16, 1.0f / std::sqrt(16.0f), out.data());
  expect_matches("depth attend", out, golden_bf16(g, "attn.out"), 0, 0);
}

}  // namespace
}  // namespace music3::gates
