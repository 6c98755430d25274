#include "engine/models/music3/vocoder/vocoder_device_arm.h"

#include <stdexcept>
#include <string>
#include <vector>

#include "engine/ops/ops.h"
#include "engine/ops/registry.h"
#include "engine/ops/vocoder_ops.h"
#include "engine/runtime/device_pools.h"

namespace music3::vocoder {

namespace {
constexpr int kStreams = 2;

// [batch][rows][cols] -> [batch][cols][rows] on the host (the channels-last arm's entry and run_stage()'s copies).
std::vector<bf16> transposed(const bf16* in, int64_t batch, int64_t rows, int64_t cols) {
  std::vector<bf16> out(size_t(batch * rows * cols));
  for (int64_t b = 0; b < batch; ++b)
    for (int64_t r = 0; r < rows; ++r)
      for (int64_t c = 0; c < cols; ++c) out[size_t((b * cols + c) * rows + r)] = in[(b * rows + r) * cols + c];
  return out;
}
}

struct VocoderDeviceArm::StagedConv {
  int out = 0, in = 0, kernel = 0;
  DeviceBuffer weight, bias;
};

struct VocoderDeviceArm::Staged {
  struct Unit {
    int dilation = 1;
    DeviceBuffer alpha1, alpha2;
    StagedConv conv1, conv2;
  };
  struct Block {
    int stride = 1;
    DeviceBuffer alpha;
    StagedConv up;
    Unit units[3];
  };
  StagedConv dec_in_proj, conv_in, conv_out;
  std::vector<Block> blocks;
  DeviceBuffer alpha_out;
};

struct VocoderDeviceArm::Act {
  int channels = 0;
  int64_t time = 0;
  DeviceBuffer buf;  // [2][channels][time], or [2][time][channels] when channels-last, on the queue's device
};

// Add stays: conv1d's entry runs it after the conv when no provider fuses the residual.
std::span<const ops::OpId> VocoderDeviceArm::ops() {
  static constexpr ops::OpId kOps[] = {ops::OpId::Conv1d, ops::OpId::ConvTranspose1d, ops::OpId::Snake,
                                       ops::OpId::Tanh, ops::OpId::Add};
  return kOps;
}

VocoderDeviceArm::VocoderDeviceArm(const VocoderWeights& weights, const Queue& q)
    : VocoderDeviceArm(weights, q, std::nullopt, std::nullopt) {}

VocoderDeviceArm::VocoderDeviceArm(const VocoderWeights& weights, const Queue& q, ops::ConvWeightLayout conv_layout)
    : VocoderDeviceArm(weights, q, std::optional<ops::ConvWeightLayout>(conv_layout), std::nullopt) {}

VocoderDeviceArm::VocoderDeviceArm(const VocoderWeights& weights, const Queue& q, ops::ConvWeightLayout conv_layout,
                                   ops::ActLayout act)
    : VocoderDeviceArm(weights, q, std::optional<ops::ConvWeightLayout>(conv_layout), std::optional<ops::ActLayout>(act)) {}

VocoderDeviceArm::VocoderDeviceArm(const VocoderWeights& weights, const Queue& q,
                                   std::optional<ops::ConvWeightLayout> conv_layout, std::optional<ops::ActLayout> act)
    : cfg_(weights.cfg), q_(q), w_(std::make_unique<Staged>()) {
  for (auto op : ops())
    if (!ops::registry().has(op, q.device)) throw ops::MissingProvider(op, q.device);
  conv_layout_ = conv_layout ? *conv_layout : ops::preferred_conv1d_layout(q);
  const auto conv_taking = [&](ops::ActLayout a) {
    ops::Conv1dArgs probe{};
    probe.layout = conv_layout_, probe.act = a;
    return ops::registry().find(ops::OpId::Conv1d, q.device, &probe) != nullptr;
  };
  act_ = act ? *act : conv_taking(ops::ActLayout::ChannelsLast) ? ops::ActLayout::ChannelsLast
                                                                 : ops::ActLayout::ChannelsFirst;
  if (!conv_taking(act_))
    throw ops::MissingProvider(ops::OpId::Conv1d, q.device,
                               std::string("no enabled provider takes the requested weight layout with ") +
                                   ops::act_layout_name(act_) + " activations");
  pool_ = runtime::shared_device_pool(q);
  if (!pool_) throw std::runtime_error("vocoder device arm: the queue has no backend, so no device pool");
  auto upload = [&](const std::vector<bf16>& host) {
    DeviceBuffer b = pool_->acquire(host.size() * sizeof(bf16));
    q_.backend->copy(b.data(), host.data(), host.size() * sizeof(bf16), CopyKind::HostToDevice, q_.stream);
    staged_bytes_ += host.size() * sizeof(bf16);
    return b;
  };
  auto stage = [&](const Conv& c) {
    StagedConv s;
    s.out = c.out, s.in = c.in, s.kernel = c.kernel;
    if (c.transposed || conv_layout_ == ops::ConvWeightLayout::OutInTap) {
      s.weight = upload(c.weight);  // as torch stores it
    } else {  // torch's [Cout][Cin][K] -> conv_layout_
      std::vector<bf16> staged(c.weight.size());
      for (int co = 0; co < c.out; ++co)
        for (int ci = 0; ci < c.in; ++ci)
          for (int k = 0; k < c.kernel; ++k)
            staged[size_t(ops::conv_weight_offset(conv_layout_, c.kernel, c.out, c.in, k, co, ci))] =
                c.weight[(size_t(co) * c.in + ci) * c.kernel + k];
      s.weight = upload(staged);
    }
    s.bias = upload(c.bias);
    return s;
  };
  w_->dec_in_proj = stage(weights.dec_in_proj);
  w_->conv_in = stage(weights.conv_in);
  for (const auto& b : weights.blocks) {
    Staged::Block blk;
    blk.stride = b.stride;
    blk.alpha = upload(b.alpha);
    blk.up = stage(b.up);
    for (int u = 0; u < 3; ++u) {
      blk.units[u].dilation = b.units[u].dilation;
      blk.units[u].alpha1 = upload(b.units[u].alpha1);
      blk.units[u].alpha2 = upload(b.units[u].alpha2);
      blk.units[u].conv1 = stage(b.units[u].conv1);
      blk.units[u].conv2 = stage(b.units[u].conv2);
    }
    w_->blocks.push_back(std::move(blk));
  }
  w_->alpha_out = upload(weights.alpha_out);
  w_->conv_out = stage(weights.conv_out);
  q_.synchronize();
}

VocoderDeviceArm::~VocoderDeviceArm() {
  q_.synchronize();
  w_.reset();
}

namespace {
Tensor on(const Queue& q, void* data, DType dt, Shape s) { return Tensor{data, dt, s, q.device}; }
}  // namespace

Shape VocoderDeviceArm::shape(int64_t channels, int64_t time) const {
  return ops::act_shape(act_, kStreams, channels, time);
}

VocoderDeviceArm::Act VocoderDeviceArm::conv(const Act& x, const StagedConv& c, int dilation, int pad,
                                             const Act* residual) {
  const int64_t t_pad = x.time + 2 * pad, t_out = t_pad - int64_t(dilation) * (c.kernel - 1);
  DeviceBuffer xpad = pool_->acquire(size_t(kStreams) * c.in * t_pad * sizeof(bf16));
  DeviceBuffer acc = pool_->acquire(size_t(kStreams) * c.out * t_out * sizeof(float));
  Act y{c.out, t_out, pool_->acquire(size_t(kStreams) * c.out * t_out * sizeof(bf16))};
  ops::Conv1dArgs a{on(q_, x.buf.data(), DType::BF16, shape(c.in, x.time)),
                    on(q_, c.weight.data(), DType::BF16, ops::conv_weight_shape(conv_layout_, c.kernel, c.out, c.in)),
                    on(q_, c.bias.data(), DType::BF16, Shape{c.out}),
                    on(q_, xpad.data(), DType::BF16, shape(c.in, t_pad)),
                    on(q_, acc.data(), DType::F32, shape(c.out, t_out)),
                    on(q_, y.buf.data(), DType::BF16, shape(c.out, t_out)),
                    dilation,
                    pad,
                    conv_layout_,
                    act_};
  if (residual) a.residual = on(q_, residual->buf.data(), DType::BF16, shape(c.out, t_out));
  ops::conv1d(q_, a);
  return y;
}

VocoderDeviceArm::Act VocoderDeviceArm::conv_transposed(const Act& x, const StagedConv& c, int stride, int pad) {
  const int64_t l_out = (x.time - 1) * stride - 2 * int64_t(pad) + c.kernel;
  DeviceBuffer cols = pool_->acquire(size_t(kStreams) * c.out * c.kernel * x.time * sizeof(bf16));
  Act y{c.out, l_out, pool_->acquire(size_t(kStreams) * c.out * l_out * sizeof(bf16))};
  ops::ConvTranspose1dArgs a{on(q_, x.buf.data(), DType::BF16, shape(c.in, x.time)),
                             on(q_, c.weight.data(), DType::BF16, Shape{c.in, c.out, c.kernel}),
                             on(q_, c.bias.data(), DType::BF16, Shape{c.out}),
                             on(q_, cols.data(), DType::BF16, shape(int64_t(c.out) * c.kernel, x.time)),
                             on(q_, y.buf.data(), DType::BF16, shape(c.out, l_out)),
                             stride,
                             pad,
                             act_};
  ops::conv_transpose1d(q_, a);
  return y;
}

void VocoderDeviceArm::snake(Act& x, const DeviceBuffer& alpha) {
  const Tensor v = on(q_, x.buf.data(), DType::BF16, shape(x.channels, x.time));
  ops::snake(q_, v, on(q_, alpha.data(), DType::BF16, Shape{x.channels}), v, act_);
}

VocoderDeviceArm::Act VocoderDeviceArm::residual_unit(Act x, int block, int unit_index) {
  const int k = VocoderConfig::kKernel;
  const auto& unit = w_->blocks[block].units[unit_index];
  Act r{x.channels, x.time, pool_->acquire(size_t(kStreams) * x.channels * x.time * sizeof(bf16))};
  const Tensor x3 = on(q_, x.buf.data(), DType::BF16, shape(x.channels, x.time));
  const Tensor r3 = on(q_, r.buf.data(), DType::BF16, shape(x.channels, x.time));
  ops::snake(q_, x3, on(q_, unit.alpha1.data(), DType::BF16, Shape{x.channels}), r3, act_);
  r = conv(r, unit.conv1, unit.dilation, unit.dilation * (k - 1) / 2);
  snake(r, unit.alpha2);
  return conv(r, unit.conv2, 1, 0, &x);  // the unit's identity added in the conv's epilogue
}

VocoderDeviceArm::Act VocoderDeviceArm::apply(const Stage& stage, Act x) {
  const int k = VocoderConfig::kKernel;
  using K = Stage::Kind;
  switch (stage.kind) {
    case K::DecInProj: return conv(x, w_->dec_in_proj, 1, 0);
    case K::ConvIn: return conv(x, w_->conv_in, 1, k / 2);
    case K::BlockSnake: snake(x, w_->blocks[stage.block].alpha); return x;
    case K::BlockUp: {
      const auto& blk = w_->blocks[stage.block];
      return conv_transposed(x, blk.up, blk.stride, transposed_padding(blk.stride));
    }
    case K::ResidualUnit: return residual_unit(std::move(x), stage.block, stage.unit);
    case K::SnakeOut: snake(x, w_->alpha_out); return x;
    case K::ConvOut: return conv(x, w_->conv_out, 1, k / 2);
    case K::Tanh: {
      const Tensor y = on(q_, x.buf.data(), DType::BF16, shape(x.channels, x.time));
      ops::tanh(q_, y, y);
      return x;
    }
  }
  throw std::logic_error("vocoder device arm: unknown stage " + stage.name());
}

Waveform VocoderDeviceArm::decode(const bf16* latents, int64_t length) {
  if (length <= 0) throw std::invalid_argument("vocoder: a window needs at least one latent, got " + std::to_string(length));
  const size_t count = size_t(cfg_.latent_channels) * length;
  Act x{cfg_.stream_channels(), length, pool_->acquire(count * sizeof(bf16))};
  std::vector<bf16> last;  // the latents as [2][L][C/2] for a channels-last arm
  if (act_ == ops::ActLayout::ChannelsLast) last = transposed(latents, kStreams, cfg_.stream_channels(), length);
  q_.backend->copy(x.buf.data(), last.empty() ? latents : last.data(), count * sizeof(bf16), CopyKind::HostToDevice,
                   q_.stream);
  for (const Stage& s : vocoder_stages(cfg_)) {
    x = apply(s, std::move(x));
    if (observer_) observer_(s);
  }
  Waveform out;
  out.samples = x.time;
  if (out.samples != cfg_.output_length(length)) throw std::logic_error("vocoder: stream length differs from output_length()");
  if (x.channels != 1) throw std::logic_error("vocoder: the last stage leaves more than one channel per stream");
  out.data.resize(size_t(kStreams) * out.samples);
  q_.backend->copy(out.data.data(), x.buf.data(), out.data.size() * sizeof(bf16), CopyKind::DeviceToHost, q_.stream);
  q_.synchronize();
  ++forwards_;
  return out;
}

StageTensor VocoderDeviceArm::run_stage(const Stage& stage, const StageTensor& in) {
  if (in.time <= 0 || in.data.size() != size_t(kStreams) * in.channels * in.time)
    throw std::invalid_argument("vocoder stage " + stage.name() + ": input holds " + std::to_string(in.data.size()) +
                                " values, not 2 x " + std::to_string(in.channels) + " x " + std::to_string(in.time));
  const bool last = act_ == ops::ActLayout::ChannelsLast;
  Act x{in.channels, in.time, pool_->acquire(in.data.size() * sizeof(bf16))};
  const std::vector<bf16> staged = last ? transposed(in.data.data(), kStreams, in.channels, in.time) : in.data;
  q_.backend->copy(x.buf.data(), staged.data(), staged.size() * sizeof(bf16), CopyKind::HostToDevice, q_.stream);
  x = apply(stage, std::move(x));
  StageTensor out{x.channels, x.time, std::vector<bf16>(size_t(kStreams) * x.channels * x.time)};
  q_.backend->copy(out.data.data(), x.buf.data(), out.data.size() * sizeof(bf16), CopyKind::DeviceToHost, q_.stream);
  q_.synchronize();
  if (last) out.data = transposed(out.data.data(), kStreams, x.time, x.channels);
  return out;
}

}  // namespace music3::vocoder
