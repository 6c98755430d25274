// The DiT's device arm: MiniMaxMusic3Transformer1DModel.forward (dit_host_arm.h's steps) over the op entry points
// (ops.h, lm_ops.h, transformer_ops.h) on any queue whose device has providers for ops(), both guidance branches
// as ONE batch of 2: activation rows are [token][branch] (row 2 s + b; branch 0 conditional, branch 1 the
// all-zero condition), so every GEMM runs M = 2 (L + 1) rows and the time token is rows 0 and 1.
// Per velocities() call (one guided step):
//  - host: x transposed to [L][C], the Fourier features (dit_fourier_features, 128 sin/cos) for both rows, and
//    the condition uploaded only when it differs from the last one (it is constant over a window's steps);
//  - device, one frame body (captured once per latent length where the backend has graphs, replayed after):
//    place_rows builds X [2L][concat] = [x^T | 0 | cond (branch 0) or 0]; the 1x1 preprocess conv as matmul_bt
//    plus add (its residual); proj_in into rows 2..; the time MLP (matmul_bt with bias, SiLU by silu_and_mul with
//    gate_second over [1 | lin1 out], exact since bf16(1 * y) = y, matmul_bt with bias) into rows 0 and 1; the
//    blocks: layer_norm / add_layer_norm (the residual add fused with the next norm), the merged q|k|v matmul,
//    self_attention (non-causal, batch 2) with the rotary tables, which applies rope to the q and k heads (the
//    first rotary_dim dims, positions from 0) as it loads them, rope's bits without a pass over qkv; to_out, ff_in with its bias, silu_and_mul(gate_second), ff_out with its bias; then
//    proj_out of rows 2.., the 1x1 postprocess conv as matmul_bt plus add;
//  - host: the [2L][C] result downloaded once (the one host sync of the step) and split into the two
//    [C][L] velocities.
// run_steps() keeps x on the device for a window's N steps instead: x (transposed), the condition, every step's
// Fourier rows and every step's re-noised overlap (computed on the host by renoise_overlap, so the bits are the
// loop's) are uploaded once; per step the step's rows are copied into place on the device, the frame body replays,
// and guided_euler (engine/ops/flow_ops.h) updates x from the [2L][C] result; step i + 1 is queued before the host
// waits for step i (a stream mark per step, for the progress callback), so the device never waits for a launch;
// one download per window.
// Staging copies every weight but time_proj (read on the host) once, straight from the host weights (bf16, cast
// at load), merging to_q|to_k|to_v into one [3 inner, inner]; 1x1 conv weights [out, in, 1] staged as [out, in].
// A new latent length draws the window's buffers from the device pool and drops the captured graph. Counters:
// device_forwards and forwards() move by two per velocities() (two model evaluations); resident_dtypes holds
// BF16 alone (weights, activations, the rotary tables); aux_dtypes stays empty.
// Thread-safety: one thread at a time (it owns its queue's buffers and graph).
#pragma once
#include <memory>
#include <span>
#include <vector>

#include "engine/core/device_pool.h"
#include "engine/core/queue.h"
#include "engine/models/music3/acoustic/acoustic_arms.h"
#include "engine/models/music3/acoustic/dit_weights.h"
#include "engine/ops/registry.h"
#include "engine/runtime/frame_graph.h"
#include "engine/runtime/resident_set.h"

namespace music3::acoustic {

class DitDeviceArm final : public DitArm {
 public:
  DitDeviceArm(const DitWeights& w, const Queue& q, DevicePool& pool, runtime::ArmInstruments& instruments);
  DitDeviceArm(const DitDeviceArm&) = delete;
  DitDeviceArm& operator=(const DitDeviceArm&) = delete;
  VelocityPair velocities(const bf16* x, int64_t length, bf16 t, const bf16* cond) override;
  bool run_steps(bf16* x, const WindowSteps& steps) override;
  int64_t latent_channels() const override { return cfg_.in_channels; }
  int64_t cond_channels() const override { return cfg_.condition_dim; }
  int64_t forwards() const override { return forwards_; }
  ArmKind kind() const override { return ArmKind::Device; }
  static std::span<const ops::OpId> ops();

 private:
  struct Block {
    Tensor norm1_w, norm1_b, wqkv, wo, norm2_w, norm2_b, ff_in_w, ff_in_b, ff_out_w, ff_out_b;
  };
  void size_for(int64_t L);
  void size_steps_for(int steps);  // the step tables of run_steps() for `steps` steps at the current length
  void upload_inputs(const bf16* x, const bf16* cond);  // x transposed into xt_; cond when it changed
  void forward();  // the frame body over the window's buffers

  const DitWeights& w_;
  const DitConfig cfg_;
  Queue q_;
  DevicePool& pool_;
  runtime::ArmInstruments& ins_;
  runtime::ResidentSet held_;
  std::vector<Block> blocks_;
  Tensor lin1_w_, lin1_b_, lin2_w_, lin2_b_, pre_conv_, proj_in_, proj_out_, post_conv_;
  // Per latent length.
  int64_t length_ = 0;
  std::unique_ptr<runtime::ResidentSet> window_;  // the buffers of one latent length
  std::unique_ptr<runtime::FrameGraph> graph_;
  Tensor xt_, cond_, four_, X_, P_, Xt_, t1_, G_, t2_, h_, a_, qkv_, attn_, o_, ff_, act_, y_, p_, out_, cos_, sin_;
  std::vector<bf16> cond_host_;  // the condition cond_ holds
  std::vector<bf16> xt_host_;    // x as [L][C]: xt_'s host side, kept so an upload needs no sync
  // run_steps()'s tables (per latent length and step count): every step's Fourier rows [N * 2][fourier_dim] and
  // re-noised overlap [N * L][C] (the first ov rows of each step's L-row block used).
  int steps_ = 0;
  std::unique_ptr<runtime::ResidentSet> step_tables_;
  Tensor four_steps_, renoised_;
  int64_t forwards_ = 0;
};

}  // namespace music3::acoustic
