// The vocoder's device arm: the same forward as the host arm, written against the op entry points
// (engine/ops/vocoder_ops.h, ops::add) on a Queue, so it runs on any device with providers, the CPU included.
// Contract: the constructor stages every weight onto the queue's device once (conv weights in the layout of the
// conv1d provider the registry prefers there, ops::preferred_conv1d_layout: tap-major [K, Cout, Cin] for the
// GEMM-per-tap providers, torch's [Cout, Cin, K] for cuDNN, [Cout, K, Cin] for the CUTLASS implicit GEMM (whose
// declined shapes cuBLAS runs from the same staging); transposed-conv weights as torch stores them) from the queue's
// shared device pool (runtime/device_pools.h); it throws ops::MissingProvider naming the op and device when one
// of ops() has no provider there, and std::runtime_error when the queue has no backend. ops() lists every op
// decode() issues (the selector and the reachability gate read it).
// decode() copies one window's latents [C][L] bf16 to the device (as [2, C/2, L]: the stereo streams are the
// batch), runs the forward (vocoder_stages(), one apply() each), and copies [2][output_length(L)] bf16 back;
// run_stage() copies one stage's input in, runs that stage's apply() and copies its output back.
// Activations are channels-last [2, T, C] (ops::ActLayout::ChannelsLast: no transposes around the implicit-GEMM
// convs, 1x1 convs as GEMMs with the bias in the epilogue) when an enabled conv1d provider takes them with the staged
// weight layout, else channels-first [2, C, T]; the latents are transposed on the host at entry (and run_stage()'s
// [2, C, T] tensors both ways), the last conv has one channel, so its [2, T, 1] output is the waveform as is. Activations and scratch come from the
// same pool. forwards() counts decodes; staged_bytes() is the resident weight bytes (all bf16). A stage observer
// (set_stage_observer) is called by decode() after each stage's ops are enqueued (bench-vocoder synchronizes there to
// time the stages).
// One instance is used by one thread at a time; the queue must outlive it.
#pragma once
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <vector>

#include "engine/core/device_pool.h"
#include "engine/core/queue.h"
#include "engine/ops/registry.h"
#include "engine/ops/vocoder_ops.h"
#include "engine/models/music3/vocoder/vocoder_arm.h"
#include "engine/models/music3/vocoder/vocoder_weights.h"

namespace music3::vocoder {

class VocoderDeviceArm : public VocoderArm {
 public:
  VocoderDeviceArm(const VocoderWeights& weights, const Queue& q);
  // Stages the conv weights in `conv_layout` instead (so the provider taking that layout runs: the benches time the
  // cuDNN and the cuBLAS conv in one process); throws ops::MissingProvider when no enabled provider takes it.
  VocoderDeviceArm(const VocoderWeights& weights, const Queue& q, ops::ConvWeightLayout conv_layout);
  // Also forces the activations' layout (the A/B of channels-first against channels-last); throws
  // ops::MissingProvider when no enabled conv1d provider takes the pair.
  VocoderDeviceArm(const VocoderWeights& weights, const Queue& q, ops::ConvWeightLayout conv_layout, ops::ActLayout act);
  ops::ConvWeightLayout conv_layout() const { return conv_layout_; }
  ops::ActLayout act_layout() const { return act_; }
  ~VocoderDeviceArm();
  VocoderDeviceArm(const VocoderDeviceArm&) = delete;
  VocoderDeviceArm& operator=(const VocoderDeviceArm&) = delete;

  Waveform decode(const bf16* latents, int64_t length) override;
  StageTensor run_stage(const Stage& stage, const StageTensor& in) override;
  int64_t forwards() const override { return forwards_; }
  ArmKind kind() const override { return ArmKind::Device; }
  size_t staged_bytes() const { return staged_bytes_; }
  void set_stage_observer(std::function<void(const Stage&)> observer) { observer_ = std::move(observer); }
  static std::span<const ops::OpId> ops();

 private:
  VocoderDeviceArm(const VocoderWeights& weights, const Queue& q, std::optional<ops::ConvWeightLayout> conv_layout,
                   std::optional<ops::ActLayout> act);
  Shape shape(int64_t channels, int64_t time) const;  // an activation's [2, C, T] or [2, T, C]
  struct StagedConv;
  struct Staged;
  struct Act;
  // The conv, then (optionally) the residual added: ops::conv1d's epilogue, fused into the conv's kernel where a
  // provider does so.
  Act conv(const Act& x, const StagedConv& c, int dilation, int pad, const Act* residual = nullptr);
  Act conv_transposed(const Act& x, const StagedConv& c, int stride, int pad);
  void snake(Act& x, const DeviceBuffer& alpha);
  Act residual_unit(Act x, int block, int unit);
  Act apply(const Stage& stage, Act x);

  VocoderConfig cfg_;
  Queue q_;
  ops::ConvWeightLayout conv_layout_ = ops::ConvWeightLayout::TapMajor;
  ops::ActLayout act_ = ops::ActLayout::ChannelsFirst;
  DevicePool* pool_ = nullptr;
  std::unique_ptr<Staged> w_;
  size_t staged_bytes_ = 0;
  std::function<void(const Stage&)> observer_;
  int64_t forwards_ = 0;
};

}  // namespace music3::vocoder
