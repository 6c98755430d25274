#include "engine/models/music3/depth/depth_device_arm.h"

#include <cmath>
#include <cstring>
#include <stdexcept>

#include "engine/ops/ops.h"

namespace music3::depth {

namespace {
constexpr int32_t kZero = 0;  // the frame's non-finite count starts here
size_t sz(int64_t v) { return static_cast<size_t>(v); }
Tensor rows(const Tensor& t, int64_t first, int64_t count) { return runtime::row_range(t, first, count); }

// Every op issue_frame_body() and forward() call.
constexpr ops::OpId kOps[] = {ops::OpId::AddRmsNorm, ops::OpId::MatmulBT,        ops::OpId::KvAppendAttention,
                              ops::OpId::SiluAndMul, ops::OpId::EmbeddingGather, ops::OpId::CfgTopkSample,
                              ops::OpId::ExpDraws};
}  // namespace

std::span<const ops::OpId> DepthDeviceArm::ops() { return kOps; }

DepthDeviceArm::DepthDeviceArm(const DepthWeights& w, const Queue& q, DevicePool& pool, DepthInstruments& ins)
    : cfg_(w.cfg),
      q_(q),
      ins_(ins),
      held_(q, pool, ins),
      graph_(q, 2),
      frame_host_(*q.backend,
                  sz(cfg_.steps() + 1) * sizeof(int32_t) + sz(2 * cfg_.steps() * cfg_.hidden) * sizeof(bf16)) {
  const int64_t H = cfg_.hidden, I = cfg_.intermediate, V = cfg_.vocab;
  projection_ = held_.stage(w.projection);
  pos_embedding_ = held_.stage(w.pos_embedding);
  audio_embeddings_ = held_.stage(w.audio_embeddings);
  norm_ = held_.stage(w.norm);
  for (const auto& head : w.heads) heads_.push_back(held_.stage(head));
  for (const auto& L : w.layers) {
    Layer d;
    d.in_norm = held_.stage(L.input_norm);
    d.post_norm = held_.stage(L.post_norm);
    // Merged [3H, H] = to_q | to_k | to_v, row blocks in that order.
    d.wqkv = held_.stage_rows({&L.wq, &L.wk, &L.wv});
    d.wo = held_.stage(L.wo);
    // Merged [2I, H] = gate_proj | up_proj: silu_and_mul reads gate first, up second.
    d.w_gate_up = held_.stage_rows({&L.w_gate, &L.w_up});
    d.w_down = held_.stage(L.w_down);
    layers_.push_back(d);
  }
  x_ = resident(DType::BF16, {4, H}, true);
  h_ = resident(DType::BF16, {4, H}, true);
  h_mid_ = resident(DType::BF16, {4, H}, true);
  a_ = resident(DType::BF16, {4, H}, true);
  qkv_ = resident(DType::BF16, {4, 3 * H}, true);
  attn_ = resident(DType::BF16, {4, H}, true);
  o_ = resident(DType::BF16, {4, H}, true);
  gate_up_ = resident(DType::BF16, {4, 2 * I}, true);
  act_ = resident(DType::BF16, {4, I}, true);
  d_ = resident(DType::BF16, {4, H}, true);
  logits_ = resident(DType::BF16, {int64_t(cfg_.steps()) * 2, V}, true);
  final_hidden_ = resident(DType::BF16, {int64_t(cfg_.steps()) * 2, H}, true);
  in_last_hidden_ = resident(DType::BF16, {2, H}, true);
  in_c0_ = resident(DType::BF16, {1, H}, true);
  embed_row_ = resident(DType::BF16, {1, H}, true);
  proj_row_ = resident(DType::BF16, {1, H}, true);
  draws_ = resident(DType::F32, {int64_t(cfg_.steps()), V}, false);
  guided_ = resident(DType::F32, {int64_t(cfg_.steps()), V}, false);
  codes_ = resident(DType::I32, {int64_t(cfg_.steps())}, false);
  forced_ = resident(DType::I32, {int64_t(cfg_.steps())}, false);
  nonfinite_ = resident(DType::I32, {1}, false);
  // The K/V cache, [layers][batch 2][max_positions][H] bf16, drawn from the pool once
  // and reused by every frame (a frame overwrites the rows it reads).
  const int64_t cache_elems = int64_t(cfg_.layers) * 2 * cfg_.max_positions * H;
  kv_k_ = resident(DType::BF16, {cache_elems}, true);
  kv_v_ = resident(DType::BF16, {cache_elems}, true);
  q_.synchronize();
  held_.note_pool_stats();
}

void DepthDeviceArm::forward(const Tensor* src, int pos, int n, const Tensor& out) {
  const Tensor& kv_k = kv_k_;
  const Tensor& kv_v = kv_v_;
  const int64_t H = cfg_.hidden, M = 2 * n;
  const float scale = 1.0f / std::sqrt(static_cast<float>(cfg_.head_dim()));
  ++issued_forwards_;
  // h = x + pos_embedding[pos + t], one bf16 rounding; src[t] is [2,H] or a [1,H] row shared by both rows.
  // Each add is fused with layer 0's input norm, a = rms_norm(h).
  for (int t = 0; t < n; ++t)
    ops::add_rms_norm(q_, src[t], rows(pos_embedding_, pos + t, 1), layers_[0].in_norm, cfg_.eps, rows(h_, 2 * t, 2),
                      rows(a_, 2 * t, 2));
  const Tensor h = rows(h_, 0, M), h_mid = rows(h_mid_, 0, M), a = rows(a_, 0, M), qkv = rows(qkv_, 0, M);
  const Tensor attn = rows(attn_, 0, M), o = rows(o_, 0, M), gu = rows(gate_up_, 0, M), act = rows(act_, 0, M);
  const Tensor d = rows(d_, 0, M);
  const int64_t layer_cache = int64_t(cfg_.max_positions) * 2 * H;  // elements per layer: [b][pos][H]
  ops::matmul_bt(q_, a, layers_[0].wqkv, qkv);
  // The residual stream alternates between h (a layer's input and output) and h_mid (after its attention), so each
  // add + norm writes a buffer its GEMV's other blocks are not reading (ops.h: add_rms_norm_matmul_bt).
  for (size_t l = 0; l < layers_.size(); ++l) {
    const Layer& L = layers_[l];
    Tensor kc{static_cast<bf16*>(kv_k.data) + sz(int64_t(l) * layer_cache), kv_k.dtype,
              {2, cfg_.max_positions, H}, q_.device};
    Tensor vc{static_cast<bf16*>(kv_v.data) + sz(int64_t(l) * layer_cache), kv_v.dtype,
              {2, cfg_.max_positions, H}, q_.device};
    ops::kv_append_attention(q_, qkv, kc, vc, pos, cfg_.heads, scale, attn);
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
      // The last token's rows only (the earlier rows are not read again): h = h_mid + d; out = norm(h).
      ops::add_rms_norm(q_, rows(h_mid_, 2 * (n - 1), 2), rows(d_, 2 * (n - 1), 2), norm_, cfg_.eps,
                        rows(h_, 2 * (n - 1), 2), out);
    }
  }
}

void DepthDeviceArm::issue_frame_body(bool forced) {
  const uint64_t issued_before = issued_forwards_;
  const int64_t V = cfg_.vocab;
  const int S = cfg_.steps();
  // Position 0: projection(last_hidden), one row each; position 1: projection(c0 embedding), shared.
  ops::matmul_bt(q_, in_last_hidden_, projection_, rows(x_, 0, 2));
  ops::matmul_bt(q_, in_c0_, projection_, proj_row_);
  Tensor src[2] = {rows(x_, 0, 2), proj_row_};
  int pos = 0, n = 2;
  for (int step = 0; step < S; ++step) {
    const Tensor out = rows(final_hidden_, 2 * step, 2);
    const Tensor logits = rows(logits_, 2 * step, 2);
    forward(src, pos, n, out);
    ops::matmul_bt(q_, out, heads_[sz(step)], logits);
    ops::CfgTopkSampleArgs sa;
    sa.logits = logits;
    sa.exp_draws = Tensor{static_cast<float*>(draws_.data) + sz(step * V), DType::F32, {V}, q_.device};
    sa.guided_out = Tensor{static_cast<float*>(guided_.data) + sz(step * V), DType::F32, {V}, q_.device};
    sa.code_out = Tensor{static_cast<int32_t*>(codes_.data) + step, DType::I32, {1}, q_.device};
    sa.nonfinite = nonfinite_;
    sa.cfg_scale = cfg_.cfg_scale;
    sa.top_k = cfg_.top_k;
    ops::cfg_topk_sample(q_, sa);
    if (step + 1 == S) break;  // c_S is not embedded: there is no position S + 1
    const Tensor& fed_codes = forced ? forced_ : codes_;
    const Tensor fed{static_cast<int32_t*>(fed_codes.data) + step, DType::I32, {1}, q_.device};
    ops::embedding_gather(q_, audio_embeddings_, fed, int64_t(step) * V, embed_row_);
    ops::matmul_bt(q_, embed_row_, projection_, proj_row_);
    src[0] = proj_row_;
    pos += n;
    n = 1;
  }
  body_forwards_[forced ? 1 : 0] = issued_forwards_ - issued_before;
}

FrameResult DepthDeviceArm::run_frame(const FrameInputs& in, FrameTrace* trace) {
  Backend& be = *q_.backend;
  be.copy(in_last_hidden_.data, in.last_hidden, in_last_hidden_.bytes(), CopyKind::HostToDevice, q_.stream);
  be.copy(in_c0_.data, in.c0_embedding, in_c0_.bytes(), CopyKind::HostToDevice, q_.stream);
  issue_frame(in.frame, in.draws, in.forced_codes);
  return collect_frame(trace);
}

void DepthDeviceArm::issue_frame(uint64_t frame, const DrawSource& draws, const int32_t* forced_codes) {
  Backend& be = *q_.backend;
  if (draws.kind == DrawSource::Kind::Replay) {
    be.copy(draws_.data, draws.replay, draws_.bytes(), CopyKind::HostToDevice, q_.stream);
  } else {
    ops::exp_draws(q_, draws.seed, frame, 0, draws_);  // row s: step s, all S steps in one call
  }
  const bool forced = forced_codes != nullptr;
  if (forced) be.copy(forced_.data, forced_codes, forced_.bytes(), CopyKind::HostToDevice, q_.stream);
  be.copy(nonfinite_.data, &kZero, sizeof kZero, CopyKind::HostToDevice, q_.stream);

  // The frame body reads only the buffers filled above, so one graph per feed mode
  // replays every frame: a single launch instead of hundreds.
  graph_.run(forced ? 1 : 0, [&] { issue_frame_body(forced); });
  ins_.device_forwards += body_forwards_[forced ? 1 : 0];  // the body just issued, or the one the graph replays
}

FrameResult DepthDeviceArm::collect_frame(FrameTrace* trace) {
  issue_collect();
  if (trace) {
    const int64_t V = cfg_.vocab;
    const int S = cfg_.steps();
    Backend& be = *q_.backend;
    trace->head_logits.resize(sz(2 * S * V));
    trace->guided.resize(sz(S * V));
    be.copy(trace->head_logits.data(), logits_.data, logits_.bytes(), CopyKind::DeviceToHost, q_.stream);
    be.copy(trace->guided.data(), guided_.data, guided_.bytes(), CopyKind::DeviceToHost, q_.stream);
  }
  q_.synchronize();
  return taken_frame(trace);
}

void DepthDeviceArm::issue_collect() {
  Backend& be = *q_.backend;
  auto* at = static_cast<unsigned char*>(frame_host_.data());
  for (const Tensor* t : {&codes_, &nonfinite_, &final_hidden_}) {
    be.copy_to_host_async(at, t->data, t->bytes(), q_.stream);
    at += t->bytes();
  }
}

FrameResult DepthDeviceArm::taken_frame(FrameTrace* trace) {
  const int64_t H = cfg_.hidden;
  const int S = cfg_.steps();
  const auto* codes = static_cast<const int32_t*>(frame_host_.data());
  const int32_t nonfinite = codes[S];
  const auto* finals = reinterpret_cast<const bf16*>(codes + S + 1);
  FrameResult r;
  r.codes.assign(codes, codes + S);
  r.hidden.resize(sz(S * H));
  for (int s = 0; s < S; ++s)  // the conditional row of each step
    std::memcpy(r.hidden.data() + sz(s * H), finals + sz(2 * s * H), sz(H) * sizeof(bf16));
  if (trace) trace->final_hidden.assign(finals, finals + sz(2 * S * H));
  ins_.nonfinite_logits += uint64_t(nonfinite);
  held_.note_pool_stats();
  ++ins_.frames;
  return r;
}

}  // namespace music3::depth
