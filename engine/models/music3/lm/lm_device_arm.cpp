#include "engine/models/music3/lm/lm_device_arm.h"

#include <cmath>
#include <cstring>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/models/music3/lm/lm_host_math.h"
#include "engine/models/music3/lm/lm_ids.h"
#include "engine/ops/lm_ops.h"
#include "engine/ops/ops.h"
#include "engine/ops/registry.h"

namespace music3::lm {

namespace {
size_t sz(int64_t v) { return static_cast<size_t>(v); }
constexpr int32_t kZeroSample[2] = {0, 0};  // the sample buffer's start: column 0, no non-finite logit yet
Tensor rows(const Tensor& t, int64_t first, int64_t count) { return runtime::row_range(t, first, count); }

// Every op forward() and head() call.
constexpr ops::OpId kOps[] = {ops::OpId::RmsNorm,      ops::OpId::MatmulBT,   ops::OpId::QkNormRope,
                              ops::OpId::GqaAttention, ops::OpId::AddRmsNorm, ops::OpId::SiluAndMul};
}  // namespace

std::span<const ops::OpId> LmDeviceArm::ops() { return kOps; }

LmDeviceArm::LmDeviceArm(const LmWeights& w, const Queue& q, DevicePool& pool, runtime::ArmInstruments& ins)
    : cfg_(w.cfg),
      q_(q),
      pool_(pool),
      ins_(ins),
      held_(q, pool, ins),
      head_graph_(q, 1),
      sample_host_(*q.backend, 2 * sizeof(int32_t)) {
  for (const auto& L : w.layers) {
    Layer d;
    d.in_norm = held_.stage(L.input_norm);
    d.post_norm = held_.stage(L.post_norm);
    d.q_norm = held_.stage(L.q_norm);
    d.k_norm = held_.stage(L.k_norm);
    // Merged [(nH + 2 nKV) D, H] = q_proj | k_proj | v_proj, row blocks in that order.
    d.wqkv = held_.stage_rows({&L.wq, &L.wk, &L.wv});
    d.wo = held_.stage(L.wo);
    // Merged [2I, H] = gate_proj | up_proj.
    d.w_gate_up = held_.stage_rows({&L.w_gate, &L.w_up});
    d.w_down = held_.stage(L.w_down);
    layers_.push_back(d);
  }
  norm_ = held_.stage(w.norm);
  // The sliced head [16385, H]: column 0 is <|audio_end|>, column 1 + j is code j (lm_ids.h).
  head_w_ = held_.stage_rows({&w.head_eos, &w.head_codes});
  head_in_ = held_.resident(DType::BF16, {2, cfg_.hidden}, true);
  logits_ = held_.resident(DType::BF16, {2, kSampledColumns}, true);
  draws_ = held_.resident(DType::F32, {kSampledColumns}, false);
  sample_ = held_.resident(DType::I32, {2}, false);
  // Weights without the embedding table (the benches' synthetic ones) leave it empty: no device-resident frame.
  if (w.embed.shape.rank == 2 && w.embed.shape[0] >= kMinVocab && w.embed.shape[1] == cfg_.hidden) {
    code_embeddings_ = held_.resident(DType::BF16, {kSampledColumns, cfg_.hidden}, true);
    q_.backend->copy(code_embeddings_.data, w.embed.ptr() + sz(int64_t(kCodeOffset - 1) * cfg_.hidden),
                     code_embeddings_.bytes(), CopyKind::HostToDevice, q_.stream);
    ins_.staged_bytes += code_embeddings_.bytes();
  }
  q_.synchronize();
  held_.note_pool_stats();
}

Tensor LmDeviceArm::sequence_buffer(DType dt, Shape shape, bool forward_buffer) {
  Tensor t{nullptr, dt, shape, q_.device};
  seq_.push_back(pool_.acquire(t.bytes()));
  t.data = seq_.back().data();
  (forward_buffer ? ins_.resident_dtypes : ins_.aux_dtypes) |= dtype_bit(dt);
  return t;
}

void LmDeviceArm::upload_position(int pos) {
  pos_host_ = pos;  // a member: the copy may still read it after this returns (it is ordered on the stream)
  q_.backend->copy(pos_dev_.data, &pos_host_, sizeof pos_host_, CopyKind::HostToDevice, q_.stream);
}

void LmDeviceArm::forward(int T) {
  const int64_t M = 2 * int64_t(T), KV = cfg_.kv_width();
  const float scale = 1.0f / std::sqrt(static_cast<float>(cfg_.head_dim));
  const Tensor h = rows(h_, 0, M), h_mid = rows(h_mid_, 0, M), a = rows(a_, 0, M), qkv = rows(qkv_, 0, M);
  const Tensor attn = rows(attn_, 0, M), o = rows(o_, 0, M), gu = rows(gate_up_, 0, M), act = rows(act_, 0, M);
  const Tensor d = rows(d_, 0, M);
  const int64_t layer_cache = 2 * int64_t(capacity_) * KV;
  ops::rms_norm(q_, h, layers_[0].in_norm, cfg_.eps, a);
  ops::matmul_bt(q_, a, layers_[0].wqkv, qkv);
  // The residual stream alternates between h (a layer's input and output) and h_mid (after its attention), so each
  // add + norm writes a buffer its GEMV's other blocks are not reading (ops.h: add_rms_norm_matmul_bt).
  for (size_t l = 0; l < layers_.size(); ++l) {
    const Layer& L = layers_[l];
    // Per-head RMSNorm of the q heads and the k heads, then RoPE on both (q_norm/k_norm come first): one op.
    ops::qk_norm_rope(q_, {qkv, L.q_norm, L.k_norm, cos_, sin_, pos_dev_, cfg_.heads, cfg_.kv_heads, 2, cfg_.eps});
    ops::GqaAttentionArgs ga;
    ga.qkv = qkv;
    ga.k_cache = Tensor{static_cast<bf16*>(k_cache_.data) + sz(int64_t(l) * layer_cache), DType::BF16,
                        {2, capacity_, KV}, q_.device};
    ga.v_cache = Tensor{static_cast<bf16*>(v_cache_.data) + sz(int64_t(l) * layer_cache), DType::BF16,
                        {2, capacity_, KV}, q_.device};
    ga.pos = pos_dev_;
    ga.out = attn;
    ga.scratch = scratch_;
    ga.heads = cfg_.heads;
    ga.kv_heads = cfg_.kv_heads;
    ga.scale = scale;
    ops::gqa_attention(q_, ga);
    ops::matmul_bt(q_, attn, L.wo, o);
    // h_mid = h + o; act = silu_and_mul(post_norm(h_mid) . w_gate_up) (a, gu: the unfused path's scratch)
    ops::add_rms_norm_matmul_bt(q_, {.x = h, .r = o, .w = L.post_norm, .h_out = h_mid, .a_out = a, .eps = cfg_.eps,
                                     .b = L.w_gate_up, .out = act, .gate_up = gu});
    ops::matmul_bt(q_, act, L.w_down, d);
    if (l + 1 < layers_.size()) {  // h = h_mid + d; qkv = next input_norm(h) . next wqkv
      const Layer& next = layers_[l + 1];
      ops::add_rms_norm_matmul_bt(q_, {.x = h_mid, .r = d, .w = next.in_norm, .h_out = h, .a_out = a,
                                       .eps = cfg_.eps, .b = next.wqkv, .out = qkv});
    } else {
      ops::add_rms_norm(q_, h_mid, d, norm_, cfg_.eps, h, rows(fin_, 0, M));  // h = h_mid + d; fin = norm(h)
    }
  }
}

void LmDeviceArm::prefill(const bf16* embeds, int prompt, int capacity, bf16* last, bf16* all) {
  if (prompt < 1 || capacity < prompt)
    throw std::invalid_argument("lm device arm: prefill of " + std::to_string(prompt) + " positions with capacity " +
                                std::to_string(capacity));
  const int64_t H = cfg_.hidden, I = cfg_.intermediate, D = cfg_.head_dim, KV = cfg_.kv_width();
  const int64_t M = 2 * int64_t(prompt), QKV = cfg_.q_width() + 2 * KV;
  step_graph_.reset();  // captured over the previous sequence's buffers
  seq_.clear();
  h_ = sequence_buffer(DType::BF16, {M, H}, true);
  h_mid_ = sequence_buffer(DType::BF16, {M, H}, true);
  a_ = sequence_buffer(DType::BF16, {M, H}, true);
  qkv_ = sequence_buffer(DType::BF16, {M, QKV}, true);
  attn_ = sequence_buffer(DType::BF16, {M, cfg_.q_width()}, true);
  o_ = sequence_buffer(DType::BF16, {M, H}, true);
  gate_up_ = sequence_buffer(DType::BF16, {M, 2 * I}, true);
  act_ = sequence_buffer(DType::BF16, {M, I}, true);
  d_ = sequence_buffer(DType::BF16, {M, H}, true);
  fin_ = sequence_buffer(DType::BF16, {M, H}, true);
  cos_ = sequence_buffer(DType::BF16, {capacity, D}, true);
  sin_ = sequence_buffer(DType::BF16, {capacity, D}, true);
  k_cache_ = sequence_buffer(DType::BF16, {int64_t(cfg_.layers) * 2 * capacity * KV}, true);
  v_cache_ = sequence_buffer(DType::BF16, {int64_t(cfg_.layers) * 2 * capacity * KV}, true);
  pos_dev_ = sequence_buffer(DType::I32, {1}, false);
  scratch_ = sequence_buffer(DType::F32, {2 * int64_t(cfg_.heads), ops::gqa_chunks(capacity), D + 2}, false);
  capacity_ = capacity;
  Backend& be = *q_.backend;
  const host::RopeTable rope = host::rope_table(cfg_.rope_theta, cfg_.head_dim, 0, capacity);
  be.copy(cos_.data, rope.cos.data(), cos_.bytes(), CopyKind::HostToDevice, q_.stream);
  be.copy(sin_.data, rope.sin.data(), sin_.bytes(), CopyKind::HostToDevice, q_.stream);
  // [2, P, H] batch first -> rows [t][b].
  for (int t = 0; t < prompt; ++t)
    for (int b = 0; b < 2; ++b)
      be.copy(static_cast<bf16*>(h_.data) + sz((int64_t(t) * 2 + b) * H), embeds + sz((int64_t(b) * prompt + t) * H),
              sz(H) * sizeof(bf16), CopyKind::HostToDevice, q_.stream);
  upload_position(0);
  forward(prompt);
  std::vector<bf16> fin(sz(M * H));
  be.copy(fin.data(), fin_.data, fin_.bytes(), CopyKind::DeviceToHost, q_.stream);
  q_.synchronize();
  for (int b = 0; b < 2; ++b) {
    for (int t = 0; all && t < prompt; ++t)
      std::memcpy(all + sz((int64_t(b) * prompt + t) * H), fin.data() + sz((int64_t(t) * 2 + b) * H),
                  sz(H) * sizeof(bf16));
    std::memcpy(last + sz(b * H), fin.data() + sz((int64_t(prompt - 1) * 2 + b) * H), sz(H) * sizeof(bf16));
  }
  pos_ = prompt;
  last_row_ = 2 * (prompt - 1);
  step_graph_ = std::make_unique<runtime::FrameGraph>(q_, 1);
  ++ins_.device_forwards;
  held_.note_pool_stats();
}

void LmDeviceArm::decode(const bf16* embeds, bf16* last) {
  const int64_t H = cfg_.hidden;
  require_decode_room();
  q_.backend->copy(h_.data, embeds, sz(2 * H) * sizeof(bf16), CopyKind::HostToDevice, q_.stream);
  issue_decode();
  q_.backend->copy(last, fin_.data, sz(2 * H) * sizeof(bf16), CopyKind::DeviceToHost, q_.stream);
  q_.synchronize();
}

void LmDeviceArm::require_decode_room() const {
  if (!step_graph_) throw std::logic_error("lm device arm: decode before prefill");
  if (pos_ + 1 > capacity_)
    throw std::out_of_range("lm device arm: position " + std::to_string(pos_ + 1) + " exceeds the capacity " +
                            std::to_string(capacity_));
}

void LmDeviceArm::issue_decode() {
  require_decode_room();
  upload_position(pos_);
  // The step reads the position from the device, so one capture replays at every position.
  step_graph_->run(0, [&] { forward(1); });
  last_row_ = 0;
  ++pos_;
  ++ins_.device_forwards;
}

Tensor LmDeviceArm::decode_input() const { return rows(h_, 0, 2); }
Tensor LmDeviceArm::last_rows() const { return rows(fin_, last_row_, 2); }
Tensor LmDeviceArm::sampled_column() const { return Tensor{sample_.data, DType::I32, {1}, q_.device}; }

void LmDeviceArm::head(const bf16* last, bf16* logits) {
  Backend& be = *q_.backend;
  be.copy(head_in_.data, last, head_in_.bytes(), CopyKind::HostToDevice, q_.stream);
  head_graph_.run(0, [&] { ops::matmul_bt(q_, head_in_, head_w_, logits_); });
  be.copy(logits, logits_.data, logits_.bytes(), CopyKind::DeviceToHost, q_.stream);
  q_.synchronize();
}

LmSample LmDeviceArm::sample_last(const LmDraws& draws, bool mask) {
  if (ops::registry().has(ops::OpId::LmSample, q_.device)) {
    issue_sample(draws, mask);
    return read_sample();
  }
  issue_head(mask);
  std::vector<bf16> logits(sz(2 * int64_t(kSampledColumns)));
  q_.backend->copy(logits.data(), logits_.data, logits_.bytes(), CopyKind::DeviceToHost, q_.stream);
  q_.synchronize();
  return lm_sample(logits.data(), draws, kCfgScale, kCfgTopK, kTopK, nullptr, nullptr);
}

void LmDeviceArm::issue_head(bool mask) {
  if (last_row_ < 0) throw std::logic_error("lm device arm: sampling before prefill");
  const int64_t K = kSampledColumns;
  Backend& be = *q_.backend;
  be.copy(head_in_.data, last_rows().data, head_in_.bytes(), CopyKind::DeviceToDevice, q_.stream);
  head_graph_.run(0, [&] { ops::matmul_bt(q_, head_in_, head_w_, logits_); });
  if (mask)
    for (const int64_t column : {int64_t{0}, K})  // column 0 of both rows
      be.copy(static_cast<bf16*>(logits_.data) + sz(column), &kMaskedLogit, sizeof(bf16), CopyKind::HostToDevice,
              q_.stream);
}

void LmDeviceArm::issue_sample(const LmDraws& draws, bool mask) {
  issue_head(mask);
  Backend& be = *q_.backend;
  const ops::LmSampleDraws rule = draws.rule_draws();
  ops::LmSampleArgs a;
  a.logits = logits_;
  if (rule.recorded) {
    be.copy(draws_.data, rule.recorded, draws_.bytes(), CopyKind::HostToDevice, q_.stream);
    a.draws = draws_;
  }
  a.column_out = sampled_column();
  a.nonfinite = Tensor{static_cast<int32_t*>(sample_.data) + 1, DType::I32, {1}, q_.device};
  a.seed = rule.seed;
  a.iteration = rule.iteration;
  a.draw_step = rule.step;
  a.first_id = rule.first_id;
  a.next_id = rule.next_id;
  a.cfg_scale = kCfgScale;
  a.cfg_top_k = kCfgTopK;
  a.top_k = kTopK;
  be.copy(sample_.data, kZeroSample, sample_.bytes(), CopyKind::HostToDevice, q_.stream);
  ops::lm_sample(q_, a);
}

LmSample LmDeviceArm::read_sample() {
  issue_read_sample();
  q_.synchronize();
  return taken_sample();
}

void LmDeviceArm::issue_read_sample() {
  q_.backend->copy_to_host_async(sample_host_.data(), sample_.data, sample_.bytes(), q_.stream);
}

LmSample LmDeviceArm::taken_sample() const {
  const auto* s = static_cast<const int32_t*>(sample_host_.data());
  return {column_id(s[0]), static_cast<uint32_t>(s[1])};
}

}  // namespace music3::lm
