// The host arm: the depth stage on the CPU, mirroring the reference module's
// rounding points, with weights read in place (bf16) from DepthWeights and a K/V
// cache of bf16 rows that grows one call at a time (2 positions on the first call,
// then 1). Mathematically identical to upstream's full recompute of the prefix: attention
// is causal and positions are absolute, so cached rows never change.
// Thread-safety: one thread at a time (parallel inside linear()).
#pragma once
#include <vector>

#include "engine/models/music3/depth/depth_arm.h"
#include "engine/models/music3/depth/depth_weights.h"

namespace music3::depth {

class DepthHostArm final : public DepthArm {
 public:
  DepthHostArm(const DepthWeights& weights, int threads, DepthInstruments& instruments);
  ArmKind kind() const override { return ArmKind::Host; }
  FrameResult run_frame(const FrameInputs& in, FrameTrace* trace) override;

 private:
  // x: [n, 2, H] new sequence elements (position-major), already projected.
  // Writes the final-normed hidden of the last new position, [2, H], to out.
  void forward(const bf16* x, int pos, int n, bf16* out);
  int32_t sample(const bf16* logits, int step, const FrameInputs& in, float* guided_out);

  const DepthWeights& w_;
  const int threads_;
  DepthInstruments& ins_;
  std::vector<bf16> k_cache_, v_cache_;  // [layers, 2, max_pos, H]
  std::vector<bf16> h_, a_, q_, k_, v_, attn_, o_, g_, u_, act_, d_;  // scratch, [rows, width]
};

}  // namespace music3::depth
