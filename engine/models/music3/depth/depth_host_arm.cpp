#include "engine/models/music3/depth/depth_host_arm.h"

#include <cmath>
#include <cstring>

#include "engine/core/queue.h"
#include "engine/runtime/host_math.h"
#include "engine/ops/ops.h"

namespace music3::depth {

DepthHostArm::DepthHostArm(const DepthWeights& weights, int threads, DepthInstruments& instruments)
    : w_(weights), threads_(threads), ins_(instruments) {
  const auto& c = w_.cfg;
  const size_t H = static_cast<size_t>(c.hidden), I = static_cast<size_t>(c.intermediate);
  const size_t rows = 4;  // at most 2 new positions x 2 batch rows
  k_cache_.resize(size_t(c.layers) * size_t(c.max_positions) * 2 * H);
  v_cache_.resize(k_cache_.size());
  for (auto* b : {&h_, &a_, &q_, &k_, &v_, &attn_, &o_, &d_}) b->resize(rows * H);
  for (auto* b : {&g_, &u_, &act_}) b->resize(rows * I);
}

void DepthHostArm::forward(const bf16* x, int pos, int n, bf16* out) {
  const auto& c = w_.cfg;
  const int H = c.hidden, I = c.intermediate, M = 2 * n, D = c.head_dim();
  const float scale = 1.0f / std::sqrt(static_cast<float>(D));
  // h = x + pos_embedding[pos + t], one rounding (diffusers adds in bf16).
  for (int t = 0; t < n; ++t)
    for (int b = 0; b < 2; ++b)
      runtime::host::add(x + int64_t(2 * t + b) * H, w_.pos_embedding.ptr() + int64_t(pos + t) * H, H,
                h_.data() + int64_t(2 * t + b) * H);
  for (int l = 0; l < c.layers; ++l) {
    const auto& L = w_.layers[static_cast<size_t>(l)];
    runtime::host::rms_norm(h_.data(), M, L.input_norm.ptr(), H, c.eps, a_.data());
    runtime::host::linear(a_.data(), M, L.wq.ptr(), H, H, q_.data(), threads_);
    runtime::host::linear(a_.data(), M, L.wk.ptr(), H, H, k_.data(), threads_);
    runtime::host::linear(a_.data(), M, L.wv.ptr(), H, H, v_.data(), threads_);
    bf16* kc = k_cache_.data() + size_t(l) * size_t(c.max_positions) * 2 * size_t(H);
    bf16* vc = v_cache_.data() + size_t(l) * size_t(c.max_positions) * 2 * size_t(H);
    // Cache layout [batch][pos][H], so one batch row's keys are contiguous for attend();
    // row (t, b) of this call is position pos + t.
    const size_t P = size_t(c.max_positions);
    for (int t = 0; t < n; ++t)
      for (int b = 0; b < 2; ++b) {
        size_t dst = (size_t(b) * P + size_t(pos + t)) * size_t(H), src = size_t(2 * t + b) * size_t(H);
        std::memcpy(kc + dst, k_.data() + src, size_t(H) * sizeof(bf16));
        std::memcpy(vc + dst, v_.data() + src, size_t(H) * sizeof(bf16));
      }
    // Causal attention: position pos + t sees positions 0 .. pos + t.
    for (int b = 0; b < 2; ++b)
      for (int t = 0; t < n; ++t)
        runtime::host::attend(q_.data() + int64_t(2 * t + b) * H, kc + size_t(b) * P * size_t(H), vc + size_t(b) * P * size_t(H),
                     pos + t + 1, c.heads, D, scale, attn_.data() + int64_t(2 * t + b) * H);
    runtime::host::linear(attn_.data(), M, L.wo.ptr(), H, H, o_.data(), threads_);
    runtime::host::add(h_.data(), o_.data(), int64_t(M) * H, h_.data());
    runtime::host::rms_norm(h_.data(), M, L.post_norm.ptr(), H, c.eps, a_.data());
    runtime::host::linear(a_.data(), M, L.w_gate.ptr(), I, H, g_.data(), threads_);
    runtime::host::linear(a_.data(), M, L.w_up.ptr(), I, H, u_.data(), threads_);
    runtime::host::silu_mul(g_.data(), u_.data(), M, I, act_.data());
    runtime::host::linear(act_.data(), M, L.w_down.ptr(), H, I, d_.data(), threads_);
    runtime::host::add(h_.data(), d_.data(), int64_t(M) * H, h_.data());
  }
  runtime::host::rms_norm(h_.data() + int64_t(2 * (n - 1)) * H, 2, w_.norm.ptr(), H, c.eps, out);
  ++ins_.host_forwards;
}

int32_t DepthHostArm::sample(const bf16* logits, int step, const FrameInputs& in, float* guided_out) {
  const auto& c = w_.cfg;
  const Queue q = cpu_queue(threads_);
  std::vector<float> draws(static_cast<size_t>(c.vocab));
  if (in.draws.kind == DrawSource::Kind::Replay) {
    std::memcpy(draws.data(), in.draws.replay + size_t(step) * size_t(c.vocab), draws.size() * sizeof(float));
  } else {
    ops::exp_draws(q, in.draws.seed, in.frame, static_cast<uint32_t>(step),
                   Tensor{draws.data(), DType::F32, {c.vocab}, DeviceType::CPU});
  }
  int32_t code = -1;
  int32_t nonfinite = 0;
  ops::CfgTopkSampleArgs a;
  a.logits = Tensor{const_cast<bf16*>(logits), DType::BF16, {2, c.vocab}, DeviceType::CPU};
  a.exp_draws = Tensor{draws.data(), DType::F32, {c.vocab}, DeviceType::CPU};
  a.guided_out = Tensor{guided_out, DType::F32, {c.vocab}, DeviceType::CPU};
  a.code_out = Tensor{&code, DType::I32, {1}, DeviceType::CPU};
  a.nonfinite = Tensor{&nonfinite, DType::I32, {1}, DeviceType::CPU};
  a.cfg_scale = c.cfg_scale;
  a.top_k = c.top_k;
  ops::cfg_topk_sample(q, a);
  ins_.nonfinite_logits += nonfinite;
  return code;
}

FrameResult DepthHostArm::run_frame(const FrameInputs& in, FrameTrace* trace) {
  const auto& c = w_.cfg;
  const int H = c.hidden, V = c.vocab, S = c.steps();
  FrameResult r;
  r.codes.resize(size_t(S));
  r.hidden.resize(size_t(S) * size_t(H));
  if (trace) {
    trace->final_hidden.resize(size_t(S) * 2 * size_t(H));
    trace->head_logits.resize(size_t(S) * 2 * size_t(V));
    trace->guided.resize(size_t(S) * size_t(V));
  }
  // Sequence elements, position-major [t][b]: pos 0 = projection(last_hidden) per row,
  // pos 1 = projection(c0 embedding), then projection(audio_embeddings[c_k + (k-1)V]).
  std::vector<bf16> x(4 * size_t(H)), out(2 * size_t(H)), logits(2 * size_t(V));
  std::vector<float> g(static_cast<size_t>(V));
  runtime::host::linear(in.last_hidden, 2, w_.projection.ptr(), H, H, x.data(), threads_);
  runtime::host::linear(in.c0_embedding, 1, w_.projection.ptr(), H, H, x.data() + 2 * H, threads_);
  std::memcpy(x.data() + 3 * H, x.data() + 2 * H, size_t(H) * sizeof(bf16));
  int pos = 0, n = 2;
  for (int step = 0; step < S; ++step) {
    forward(x.data(), pos, n, out.data());
    runtime::host::linear(out.data(), 2, w_.heads[size_t(step)].ptr(), V, H, logits.data(), threads_);
    int32_t code = sample(logits.data(), step, in, g.data());
    r.codes[size_t(step)] = code;
    std::memcpy(r.hidden.data() + size_t(step) * H, out.data(), size_t(H) * sizeof(bf16));
    if (trace) {
      std::memcpy(trace->final_hidden.data() + size_t(step) * 2 * H, out.data(), 2 * size_t(H) * sizeof(bf16));
      std::memcpy(trace->head_logits.data() + size_t(step) * 2 * V, logits.data(), 2 * size_t(V) * sizeof(bf16));
      std::memcpy(trace->guided.data() + size_t(step) * V, g.data(), size_t(V) * sizeof(float));
    }
    if (step + 1 == S) break;  // c_S is not embedded: there is no position S + 1
    const int32_t fed = in.forced_codes ? in.forced_codes[step] : code;
    const bf16* row = w_.audio_embeddings.ptr() + (int64_t(step) * V + fed) * H;
    runtime::host::linear(row, 1, w_.projection.ptr(), H, H, x.data(), threads_);
    std::memcpy(x.data() + H, x.data(), size_t(H) * sizeof(bf16));
    pos += n;
    n = 1;
  }
  ++ins_.frames;
  return r;
}

}  // namespace music3::depth
