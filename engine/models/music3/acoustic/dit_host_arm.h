// The DiT's host arm: upstream's MiniMaxMusic3Transformer1DModel.forward (batch 1) at PyTorch's CPU bf16 rounding
// points, run once per guidance branch.
// Contract: forward(x, L, t, cond) takes the latents [in_channels][L], the timestep t (bf16, as the pipeline
// feeds it) and the condition [L][condition_dim] (nullptr = the all-zero unconditional condition) and returns the
// velocity [in_channels][L]:
//  1. X = [x; 0; cond^T] [concat][L]; X = bf16(preprocess_conv(X) + X) (1x1, host::conv_taps);
//  2. a = bf16(bf16(t * float(2 pi)) * time_proj_i), f = [bf16(cos a), bf16(sin a)];
//     temb = linear_2(bf16(silu(linear_1(f)))) (biases in the sums);
//  3. H = [temb; proj_in(X^T)] [L + 1][inner]: the time token is token 0, at rotary position 0;
//  4. per block: H = bf16(H + to_out(attn(rope(q), rope(k), v))) with q, k, v = Linear(LayerNorm_1(H)) (eps 1e-5,
//     affine), partial rotary over the first rotary_dim dims of each head (host::apply_rope, positions 0..L),
//     attention scale float(1 / sqrt(head_dim)), non-causal; then [u, g] = ff_in(LayerNorm_2(H)) split in halves,
//     H = bf16(H + ff_out(bf16(u * bf16(silu(g))))) (SiLU on the second half);
//  5. drop token 0, Y = proj_out(H)^T [in_channels][L], out = bf16(postprocess_conv(Y) + Y).
// velocities() runs forward() for cond and for nullptr. Same inputs give the same bits whatever `threads`.
// forwards() counts forward() calls (two per velocities()). One instance is used by one thread at a time; the
// weights must outlive it.
#pragma once
#include <vector>

#include "engine/models/music3/acoustic/acoustic_arms.h"
#include "engine/models/music3/acoustic/dit_weights.h"

namespace music3::acoustic {

// Step 2's Fourier features [fourier_dim]: f = [bf16(cos a), bf16(sin a)], a = bf16(bf16(t * float(2 pi)) *
// time_proj_i).
std::vector<bf16> dit_fourier_features(const DitWeights& w, bf16 t);

class DitHostArm : public DitArm {
 public:
  DitHostArm(const DitWeights& w, int threads) : w_(w), threads_(threads) {}
  std::vector<bf16> forward(const bf16* x, int64_t length, bf16 t, const bf16* cond);
  VelocityPair velocities(const bf16* x, int64_t length, bf16 t, const bf16* cond) override;
  int64_t latent_channels() const override { return w_.cfg.in_channels; }
  int64_t cond_channels() const override { return w_.cfg.condition_dim; }
  int64_t forwards() const override { return forwards_; }
  ArmKind kind() const override { return ArmKind::Host; }

 private:
  struct Rope {
    int dims = 0;                // the rotating dims of each head
    std::vector<bf16> cos, sin;  // [L + 1][dims]
  };
  std::vector<bf16> time_token(bf16 t) const;
  void block(const DitBlockWeights& b, std::vector<bf16>& h, int64_t S, const Rope& rope) const;

  const DitWeights& w_;
  int threads_;
  int64_t forwards_ = 0;
};

}  // namespace music3::acoustic
