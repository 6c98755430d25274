#include "engine/models/music3/acoustic/dit_device_arm.h"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>

#include "engine/models/music3/acoustic/acoustic_guidance.h"
#include "engine/models/music3/acoustic/acoustic_scheduler.h"
#include "engine/models/music3/acoustic/acoustic_windows.h"
#include "engine/models/music3/acoustic/dit_host_arm.h"
#include "engine/models/music3/acoustic/dit_host_math.h"
#include "engine/ops/flow_ops.h"
#include "engine/ops/ops.h"
#include "engine/ops/transformer_ops.h"

namespace music3::acoustic {

namespace {
size_t sz(int64_t v) { return static_cast<size_t>(v); }
Tensor rows(const Tensor& t, int64_t first, int64_t count) { return runtime::row_range(t, first, count); }
Tensor as_matrix(Tensor t) {  // a 1x1 conv weight [out, in, 1] as [out, in]
  t.shape = Shape{t.shape[0], t.shape[1]};
  return t;
}

// Every op forward() and run_steps() issue.
constexpr ops::OpId kOps[] = {ops::OpId::PlaceRows, ops::OpId::MatmulBT,    ops::OpId::Add,
                              ops::OpId::SiluAndMul, ops::OpId::LayerNorm,   ops::OpId::GuidedEuler,
                              ops::OpId::SelfAttention};
constexpr int kBranches = 2;  // conditional, unconditional

// Both branches' Fourier rows of timestep t, [2][fourier_dim].
std::vector<bf16> branch_fourier_rows(const DitWeights& w, bf16 t) {
  const std::vector<bf16> f = dit_fourier_features(w, t);
  std::vector<bf16> rows(f.size() * kBranches);
  for (int b = 0; b < kBranches; ++b) std::copy(f.begin(), f.end(), rows.begin() + b * static_cast<int64_t>(f.size()));
  return rows;
}
}  // namespace

std::span<const ops::OpId> DitDeviceArm::ops() { return kOps; }

DitDeviceArm::DitDeviceArm(const DitWeights& w, const Queue& q, DevicePool& pool, runtime::ArmInstruments& ins)
    : w_(w), cfg_(w.cfg), q_(q), pool_(pool), ins_(ins), held_(q, pool, ins) {
  lin1_w_ = held_.stage(w.lin1_w);
  lin1_b_ = held_.stage(w.lin1_b);
  lin2_w_ = held_.stage(w.lin2_w);
  lin2_b_ = held_.stage(w.lin2_b);
  pre_conv_ = as_matrix(held_.stage(w.pre_conv));
  proj_in_ = held_.stage(w.proj_in);
  for (const auto& b : w.blocks) {
    Block d;
    d.norm1_w = held_.stage(b.norm1_w);
    d.norm1_b = held_.stage(b.norm1_b);
    d.wqkv = held_.stage_rows({&b.wq, &b.wk, &b.wv});  // [3 inner, inner] = to_q | to_k | to_v
    d.wo = held_.stage(b.wo);
    d.norm2_w = held_.stage(b.norm2_w);
    d.norm2_b = held_.stage(b.norm2_b);
    d.ff_in_w = held_.stage(b.ff_in_w);
    d.ff_in_b = held_.stage(b.ff_in_b);
    d.ff_out_w = held_.stage(b.ff_out_w);
    d.ff_out_b = held_.stage(b.ff_out_b);
    blocks_.push_back(d);
  }
  proj_out_ = held_.stage(w.proj_out);
  post_conv_ = as_matrix(held_.stage(w.post_conv));
  q_.synchronize();
  held_.note_pool_stats();
}

void DitDeviceArm::size_for(int64_t L) {
  if (L == length_) return;
  graph_.reset();  // captured over the previous length's buffers
  window_.reset();
  window_ = std::make_unique<runtime::ResidentSet>(q_, pool_, ins_);
  auto window_buffer = [&](DType dt, Shape shape, bool forward_buffer) {
    return window_->resident(dt, shape, forward_buffer);
  };
  const int64_t C = cfg_.in_channels, Cc = cfg_.condition_dim, C2 = cfg_.concat_channels(), D = cfg_.inner();
  const int64_t S = L + 1, M = kBranches * S, F = cfg_.ff_inner;
  xt_ = window_buffer(DType::BF16, {L, C}, true);
  cond_ = window_buffer(DType::BF16, {L, Cc}, true);
  four_ = window_buffer(DType::BF16, {kBranches, cfg_.fourier_dim}, true);
  X_ = window_buffer(DType::BF16, {kBranches * L, C2}, true);
  P_ = window_buffer(DType::BF16, {kBranches * L, C2}, true);
  Xt_ = window_buffer(DType::BF16, {kBranches * L, C2}, true);
  t1_ = window_buffer(DType::BF16, {kBranches, D}, true);
  G_ = window_buffer(DType::BF16, {kBranches, 2 * D}, true);
  t2_ = window_buffer(DType::BF16, {kBranches, D}, true);
  h_ = window_buffer(DType::BF16, {M, D}, true);
  a_ = window_buffer(DType::BF16, {M, D}, true);
  qkv_ = window_buffer(DType::BF16, {M, 3 * D}, true);
  attn_ = window_buffer(DType::BF16, {M, D}, true);
  o_ = window_buffer(DType::BF16, {M, D}, true);
  ff_ = window_buffer(DType::BF16, {M, 2 * F}, true);
  act_ = window_buffer(DType::BF16, {M, F}, true);
  y_ = window_buffer(DType::BF16, {kBranches * L, C}, true);
  p_ = window_buffer(DType::BF16, {kBranches * L, C}, true);
  out_ = window_buffer(DType::BF16, {kBranches * L, C}, true);
  cos_ = window_buffer(DType::BF16, {S, cfg_.rotary_dim}, true);
  sin_ = window_buffer(DType::BF16, {S, cfg_.rotary_dim}, true);
  Backend& be = *q_.backend;
  // Constant over the length: X's zero columns (and branch 1's condition), G's ones, the rope tables from 0.
  const std::vector<bf16> zeros(sz(X_.numel()), bf16{});
  be.copy(X_.data, zeros.data(), X_.bytes(), CopyKind::HostToDevice, q_.stream);
  std::vector<bf16> g(sz(G_.numel()), bf16{});
  for (int64_t r = 0; r < kBranches; ++r)
    for (int64_t i = 0; i < D; ++i) g[sz(r * 2 * D + i)] = to_bf16(1.0f);
  be.copy(G_.data, g.data(), G_.bytes(), CopyKind::HostToDevice, q_.stream);
  std::vector<bf16> cos, sin;
  host::rope_tables(S, cfg_.rotary_dim, DitConfig::kRotaryTheta, cos, sin);
  be.copy(cos_.data, cos.data(), cos_.bytes(), CopyKind::HostToDevice, q_.stream);
  be.copy(sin_.data, sin.data(), sin_.bytes(), CopyKind::HostToDevice, q_.stream);
  q_.synchronize();  // the host staging vectors go when this returns
  cond_host_.clear();
  step_tables_.reset();
  steps_ = 0;
  length_ = L;
  graph_ = std::make_unique<runtime::FrameGraph>(q_, 1);
  held_.note_pool_stats();
}

void DitDeviceArm::forward() {
  const int64_t L = length_, C = cfg_.in_channels, D = cfg_.inner();
  const float eps = DitConfig::kNormEps;
  const float scale = static_cast<float>(1.0 / std::sqrt(double(cfg_.head_dim)));
  // 1. X = [x^T | 0 | cond or 0] per branch, the 1x1 preprocess conv and its residual, proj_in into rows 2...
  for (int b = 0; b < kBranches; ++b) ops::place_rows(q_, xt_, X_, b, kBranches, 0);
  ops::place_rows(q_, cond_, X_, 0, kBranches, 2 * C);
  ops::matmul_bt(q_, X_, pre_conv_, P_);
  ops::add(q_, P_, X_, Xt_);
  ops::matmul_bt(q_, Xt_, proj_in_, rows(h_, kBranches, kBranches * L));
  // 2-3. the time token: linear_1, SiLU (over [1 | linear_1 out], the gate second), linear_2 into rows 0 and 1.
  ops::matmul_bt(q_, four_, lin1_w_, t1_, lin1_b_);
  ops::place_rows(q_, t1_, G_, 0, 1, D);
  ops::silu_and_mul(q_, G_, t2_, /*gate_second=*/true);
  ops::matmul_bt(q_, t2_, lin2_w_, rows(h_, 0, kBranches), lin2_b_);
  // 4. the blocks; each residual add is fused with the norm that follows it.
  ops::layer_norm(q_, h_, blocks_[0].norm1_w, blocks_[0].norm1_b, eps, a_);
  for (size_t i = 0; i < blocks_.size(); ++i) {
    const Block& B = blocks_[i];
    ops::matmul_bt(q_, a_, B.wqkv, qkv_);
    // RoPE on q and k fused; nothing reads qkv afterwards, so a provider may rotate it in place.
    ops::self_attention(q_, qkv_, cfg_.heads, kBranches, scale, attn_, cos_, sin_, ops::QkvAfter::scratch);
    ops::matmul_bt(q_, attn_, B.wo, o_);
    ops::add_layer_norm(q_, h_, o_, B.norm2_w, B.norm2_b, eps, h_, a_);  // h += attn; a = norm2(h)
    ops::matmul_bt(q_, a_, B.ff_in_w, ff_, B.ff_in_b);
    ops::silu_and_mul(q_, ff_, act_, /*gate_second=*/true);
    ops::matmul_bt(q_, act_, B.ff_out_w, o_, B.ff_out_b);
    if (i + 1 < blocks_.size())
      ops::add_layer_norm(q_, h_, o_, blocks_[i + 1].norm1_w, blocks_[i + 1].norm1_b, eps, h_, a_);
    else
      ops::add(q_, h_, o_, h_);
  }
  // 5. drop the time token, proj_out, the 1x1 postprocess conv and its residual.
  ops::matmul_bt(q_, rows(h_, kBranches, kBranches * L), proj_out_, y_);
  ops::matmul_bt(q_, y_, post_conv_, p_);
  ops::add(q_, p_, y_, out_);
}

void DitDeviceArm::size_steps_for(int steps) {
  if (steps == steps_) return;
  step_tables_.reset();
  step_tables_ = std::make_unique<runtime::ResidentSet>(q_, pool_, ins_);
  four_steps_ = step_tables_->resident(DType::BF16, {int64_t{steps} * kBranches, cfg_.fourier_dim}, true);
  renoised_ = step_tables_->resident(DType::BF16, {int64_t{steps} * length_, cfg_.in_channels}, true);
  steps_ = steps;
  held_.note_pool_stats();
}

void DitDeviceArm::upload_inputs(const bf16* x, const bf16* cond) {
  const int64_t L = length_, C = cfg_.in_channels, Cc = cfg_.condition_dim;
  Backend& be = *q_.backend;
  xt_host_.resize(sz(L * C));
  for (int64_t c = 0; c < C; ++c)
    for (int64_t j = 0; j < L; ++j) xt_host_[sz(j * C + c)] = x[c * L + j];
  be.copy(xt_.data, xt_host_.data(), xt_.bytes(), CopyKind::HostToDevice, q_.stream);
  if (cond_host_.size() != sz(L * Cc) || std::memcmp(cond_host_.data(), cond, cond_host_.size() * sizeof(bf16)) != 0) {
    cond_host_.assign(cond, cond + L * Cc);
    be.copy(cond_.data, cond_host_.data(), cond_.bytes(), CopyKind::HostToDevice, q_.stream);
  }
}

VelocityPair DitDeviceArm::velocities(const bf16* x, int64_t length, bf16 t, const bf16* cond) {
  if (length < 1) throw std::invalid_argument("dit (device): a window needs at least one latent, got " + std::to_string(length));
  if (!cond) throw std::invalid_argument("dit (device): velocities() needs the condition");
  size_for(length);
  const int64_t L = length, C = cfg_.in_channels;
  Backend& be = *q_.backend;
  upload_inputs(x, cond);
  const std::vector<bf16> four = branch_fourier_rows(w_, t);
  be.copy(four_.data, four.data(), four_.bytes(), CopyKind::HostToDevice, q_.stream);
  graph_->run(0, [&] { forward(); });
  std::vector<bf16> out(sz(out_.numel()));
  be.copy(out.data(), out_.data, out_.bytes(), CopyKind::DeviceToHost, q_.stream);
  q_.synchronize();
  VelocityPair v;
  v.conditional.resize(sz(C * L));
  v.unconditional.resize(sz(C * L));
  for (int64_t j = 0; j < L; ++j)
    for (int64_t c = 0; c < C; ++c) {
      v.conditional[sz(c * L + j)] = out[sz((j * kBranches + 0) * C + c)];
      v.unconditional[sz(c * L + j)] = out[sz((j * kBranches + 1) * C + c)];
    }
  forwards_ += kBranches;
  ins_.device_forwards += kBranches;
  return v;
}

bool DitDeviceArm::run_steps(bf16* x, const WindowSteps& w) {
  if (w.length < 1) throw std::invalid_argument("dit (device): a window needs at least one latent, got " + std::to_string(w.length));
  if (!w.cond || !w.sigmas || w.sigmas->size() < 2)
    throw std::invalid_argument("dit (device): run_steps() needs the condition and at least one step's sigmas");
  if (w.overlap < 0 || w.overlap > w.length || (w.overlap > 0 && (!w.noise_prompt || !w.carried || w.carried_length < w.overlap)))
    throw std::invalid_argument("dit (device): an overlap of " + std::to_string(w.overlap) + " columns needs its noise and " +
                                std::to_string(w.overlap) + " carried columns (got " + std::to_string(w.carried_length) + ")");
  const std::vector<float>& sigmas = *w.sigmas;
  const int steps = static_cast<int>(sigmas.size()) - 1;
  size_for(w.length);
  size_steps_for(steps);
  const int64_t L = length_, C = cfg_.in_channels, ov = w.overlap, F = cfg_.fourier_dim;
  Backend& be = *q_.backend;
  // The step tables: Fourier rows and the re-noised overlap ([ov][C], the loop's renoise_overlap bits) of each step.
  std::vector<bf16> four(sz(steps * kBranches * F)), renoised(sz(steps * ov * C)), block(sz(C * ov));
  for (int i = 0; i < steps; ++i) {
    const bf16 t = timestep(sigmas, i);
    const std::vector<bf16> rows = branch_fourier_rows(w_, t);
    std::copy(rows.begin(), rows.end(), four.begin() + int64_t{i} * kBranches * F);
    if (ov == 0) continue;
    renoise_overlap(block.data(), ov, w.noise_prompt, w.carried, w.carried_length, ov, C, t);
    for (int64_t c = 0; c < C; ++c)
      for (int64_t j = 0; j < ov; ++j) renoised[sz((int64_t{i} * ov + j) * C + c)] = block[sz(c * ov + j)];
  }
  be.copy(four_steps_.data, four.data(), four.size() * sizeof(bf16), CopyKind::HostToDevice, q_.stream);
  if (ov > 0) be.copy(renoised_.data, renoised.data(), renoised.size() * sizeof(bf16), CopyKind::HostToDevice, q_.stream);
  upload_inputs(x, w.cond);  // the host tables are locals: they outlive the read-back below, which synchronizes
  const size_t four_bytes = four_.bytes(), overlap_bytes = sz(ov * C) * sizeof(bf16);
  // Step i+1 is issued before the host waits for step i (two marks in turn), so the device never idles while the
  // host launches the next step; the queue's order keeps each step's copies behind the previous step's update.
  StreamMark done[2] = {StreamMark(be), StreamMark(be)};
  auto issue = [&](int i) {
    be.copy(four_.data, four_steps_.as<const bf16>() + int64_t{i} * kBranches * F, four_bytes, CopyKind::DeviceToDevice,
            q_.stream);
    if (ov > 0)
      be.copy(xt_.data, renoised_.as<const bf16>() + int64_t{i} * ov * C, overlap_bytes, CopyKind::DeviceToDevice,
              q_.stream);
    graph_->run(0, [&] { forward(); });
    ops::guided_euler(q_, out_, xt_, kGuidanceScale, euler_dt(sigmas, i));
    done[i % 2].place(q_.stream);
  };
  issue(0);
  for (int i = 0; i < steps; ++i) {
    if (i + 1 < steps) issue(i + 1);
    done[i % 2].wait();
    forwards_ += kBranches;
    ins_.device_forwards += kBranches;
    if (w.after_step) w.after_step(i);
  }
  be.copy(xt_host_.data(), xt_.data, xt_.bytes(), CopyKind::DeviceToHost, q_.stream);
  q_.synchronize();
  for (int64_t c = 0; c < C; ++c)
    for (int64_t j = 0; j < L; ++j) x[c * L + j] = xt_host_[sz(j * C + c)];
  return true;
}

}  // namespace music3::acoustic
