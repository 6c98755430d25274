#include "engine/models/music3/acoustic/condition_encoder_device_arm.h"

#include <stdexcept>
#include <string>

#include "engine/models/music3/acoustic/condition_encoder_host_arm.h"
#include "engine/ops/vocoder_ops.h"

namespace music3::acoustic {

namespace {
constexpr ops::OpId kOps[] = {ops::OpId::Conv1d};
constexpr int kPad = (ConditionEncoderConfig::kKernel - 1) / 2;

// torch's Conv1d weight [out][in][tap] as Conv1d's tap-major [tap][out][in].
runtime::HostTensor tap_major(const runtime::HostTensor& w) {
  const int64_t out = w.shape[0], in = w.shape[1], taps = w.shape[2];
  runtime::HostTensor t(Shape{taps, out, in});
  bf16* dst = t.mutable_ptr();
  const bf16* src = w.ptr();
  for (int64_t o = 0; o < out; ++o)
    for (int64_t i = 0; i < in; ++i)
      for (int64_t k = 0; k < taps; ++k) dst[(k * out + o) * in + i] = src[(o * in + i) * taps + k];
  return t;
}
}  // namespace

std::span<const ops::OpId> ConditionEncoderDeviceArm::ops() { return kOps; }

ConditionEncoderDeviceArm::ConditionEncoderDeviceArm(const ConditionEncoderWeights& w, const Queue& q,
                                                     DevicePool& pool, runtime::ArmInstruments& ins)
    : w_(w), q_(q), pool_(pool), ins_(ins), held_(q, pool, ins) {
  const runtime::HostTensor taps = tap_major(w.proj_w);
  proj_w_ = held_.stage(taps);
  proj_b_ = held_.stage(w.proj_b);
  q_.synchronize();  // the re-laid host copy goes when this returns
  held_.note_pool_stats();
}

void ConditionEncoderDeviceArm::size_for(int64_t n) {
  if (n == frames_) return;
  const int64_t H = w_.cfg.hidden, O = w_.cfg.out_dim;
  window_.reset();
  window_ = std::make_unique<runtime::ResidentSet>(q_, pool_, ins_);
  auto buffer = [&](DType dt, Shape s, bool forward_buffer) { return window_->resident(dt, s, forward_buffer); };
  x_ = buffer(DType::BF16, {1, H, n}, true);
  xpad_ = buffer(DType::BF16, {1, H, n + 2 * kPad}, true);
  acc_ = buffer(DType::F32, {1, O, n}, false);
  out_ = buffer(DType::BF16, {1, O, n}, true);
  frames_ = n;
  held_.note_pool_stats();
}

std::vector<bf16> ConditionEncoderDeviceArm::encode(const bf16* frames, int64_t n, int64_t latent_length) {
  if (n < 1 || latent_length < 1)
    throw std::invalid_argument("condition encoder (device): " + std::to_string(n) + " frames to " +
                                std::to_string(latent_length) + " latents");
  size_for(n);
  const std::vector<bf16> mix = condition_layer_mix(w_, frames, n);  // [hidden][n]
  Backend& be = *q_.backend;
  be.copy(x_.data, mix.data(), x_.bytes(), CopyKind::HostToDevice, q_.stream);
  ops::Conv1dArgs c{x_, proj_w_, proj_b_, xpad_, acc_, out_, /*dilation*/ 1, kPad};
  ops::conv1d(q_, c);
  std::vector<bf16> proj(size_t(out_.numel()));
  be.copy(proj.data(), out_.data, out_.bytes(), CopyKind::DeviceToHost, q_.stream);
  q_.synchronize();
  ++forwards_;
  ++ins_.device_forwards;
  return condition_resample(proj.data(), w_.cfg.out_dim, n, latent_length);
}

}  // namespace music3::acoustic
