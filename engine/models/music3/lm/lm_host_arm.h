// The host arm of the language model: Qwen3 on the CPU mirroring transformers' bf16
// rounding points (runtime/host_math.h, lm_host_math.h): RMSNorm, per-head q/k RMSNorm
// before RoPE, RoPE default with the half split and bf16 cos/sin, GQA attention over
// a bf16 K/V cache laid out [layer][batch][position][kv_heads * D] (causal in the
// prefill), SwiGLU, the final norm; weights read in place from LmWeights.
// Results do not depend on `threads` (every output element is reduced in a fixed order).
// Thread-safety: one caller at a time (the cache and scratch are per arm).
#pragma once
#include <vector>

#include "engine/models/music3/lm/lm_arm.h"
#include "engine/models/music3/lm/lm_weights.h"

namespace music3::lm {

class LmHostArm final : public LmArm {
 public:
  LmHostArm(const LmWeights& weights, int threads, runtime::ArmInstruments& instruments);
  runtime::ArmKind kind() const override { return runtime::ArmKind::Host; }
  void prefill(const bf16* embeds, int prompt, int capacity, bf16* last, bf16* all) override;
  void decode(const bf16* embeds, bf16* last) override;
  void head(const bf16* last, bf16* logits) override;
  LmSample sample_last(const LmDraws& draws, bool mask_eos) override;
  int position() const override { return pos_; }

 private:
  // x: [2, T, H] batch first; runs every layer at positions pos_ .. pos_ + T - 1 and
  // leaves the pre-final-norm hidden in h_.
  void forward(const bf16* x, int T);

  const LmWeights& w_;
  const int threads_;
  runtime::ArmInstruments& ins_;
  int pos_ = 0, capacity_ = 0;
  std::vector<bf16> k_cache_, v_cache_;
  std::vector<bf16> h_, a_, q_, k_, v_, qn_, kn_, attn_, o_, g_, u_, act_, d_;
  std::vector<bf16> last_, logits_;  // the last position's final-normed hidden [2, H]; sample_last's logits [2, K]
};

}  // namespace music3::lm
