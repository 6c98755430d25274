#include "engine/models/music3/lm/lm_host_arm.h"

#include <cmath>
#include <cstring>
#include <stdexcept>

#include "engine/core/parallel.h"
#include "engine/models/music3/lm/lm_host_math.h"
#include "engine/models/music3/lm/lm_ids.h"
#include "engine/runtime/host_math.h"

namespace music3::lm {

namespace rh = runtime::host;

LmHostArm::LmHostArm(const LmWeights& weights, int threads, runtime::ArmInstruments& instruments)
    : w_(weights), threads_(threads), ins_(instruments) {}

void LmHostArm::forward(const bf16* x, int T) {
  const auto& c = w_.cfg;
  const int H = c.hidden, I = c.intermediate, Q = c.q_width(), KV = c.kv_width(), D = c.head_dim, M = 2 * T;
  if (pos_ + T > capacity_)
    throw std::out_of_range("lm host arm: position " + std::to_string(pos_ + T) + " exceeds the capacity " +
                            std::to_string(capacity_));
  const size_t m = size_t(M);
  h_.assign(x, x + m * size_t(H));
  for (auto* b : {&a_, &o_, &d_}) b->resize(m * size_t(H));
  for (auto* b : {&q_, &qn_, &attn_}) b->resize(m * size_t(Q));
  for (auto* b : {&k_, &kn_, &v_}) b->resize(m * size_t(KV));
  for (auto* b : {&g_, &u_, &act_}) b->resize(m * size_t(I));
  const host::RopeTable rope = host::rope_table(c.rope_theta, D, pos_, T);
  const float scale = 1.0f / std::sqrt(static_cast<float>(D));
  const size_t cap = size_t(capacity_);
  for (int l = 0; l < c.layers; ++l) {
    const auto& L = w_.layers[size_t(l)];
    rh::rms_norm(h_.data(), M, L.input_norm.ptr(), H, c.eps, a_.data());
    rh::linear(a_.data(), M, L.wq.ptr(), Q, H, q_.data(), threads_);
    rh::linear(a_.data(), M, L.wk.ptr(), KV, H, k_.data(), threads_);
    rh::linear(a_.data(), M, L.wv.ptr(), KV, H, v_.data(), threads_);
    // Per-head RMSNorm over D, then RoPE (q_norm/k_norm come before the rotation).
    rh::rms_norm(q_.data(), M * c.heads, L.q_norm.ptr(), D, c.eps, qn_.data());
    rh::rms_norm(k_.data(), M * c.kv_heads, L.k_norm.ptr(), D, c.eps, kn_.data());
    host::apply_rope(qn_.data(), int64_t(M) * c.heads, c.heads, rope);
    host::apply_rope(kn_.data(), int64_t(M) * c.kv_heads, c.kv_heads, rope);
    bf16* kc = k_cache_.data() + size_t(l) * 2 * cap * size_t(KV);
    bf16* vc = v_cache_.data() + size_t(l) * 2 * cap * size_t(KV);
    for (int b = 0; b < 2; ++b)
      for (int t = 0; t < T; ++t) {
        const size_t dst = (size_t(b) * cap + size_t(pos_ + t)) * size_t(KV), src = size_t(b * T + t) * size_t(KV);
        std::memcpy(kc + dst, kn_.data() + src, size_t(KV) * sizeof(bf16));
        std::memcpy(vc + dst, v_.data() + src, size_t(KV) * sizeof(bf16));
      }
    // Causal: the token at position pos_ + t sees positions 0 .. pos_ + t.
    parallel_for(M, threads_, [&](int64_t begin, int64_t end) {
      for (int64_t r = begin; r < end; ++r) {
        const int b = int(r / T), t = int(r % T);
        host::attend_gqa(qn_.data() + r * Q, kc + size_t(b) * cap * size_t(KV), vc + size_t(b) * cap * size_t(KV),
                         pos_ + t + 1, c.heads, c.kv_heads, D, scale, attn_.data() + r * Q);
      }
    });
    rh::linear(attn_.data(), M, L.wo.ptr(), H, Q, o_.data(), threads_);
    rh::add(h_.data(), o_.data(), int64_t(M) * H, h_.data());
    rh::rms_norm(h_.data(), M, L.post_norm.ptr(), H, c.eps, a_.data());
    rh::linear(a_.data(), M, L.w_gate.ptr(), I, H, g_.data(), threads_);
    rh::linear(a_.data(), M, L.w_up.ptr(), I, H, u_.data(), threads_);
    rh::silu_mul(g_.data(), u_.data(), M, I, act_.data());
    rh::linear(act_.data(), M, L.w_down.ptr(), H, I, d_.data(), threads_);
    rh::add(h_.data(), d_.data(), int64_t(M) * H, h_.data());
  }
  pos_ += T;
  ++ins_.host_forwards;
}

void LmHostArm::prefill(const bf16* embeds, int prompt, int capacity, bf16* last, bf16* all) {
  const auto& c = w_.cfg;
  if (prompt < 1 || capacity < prompt)
    throw std::invalid_argument("lm host arm: prefill of " + std::to_string(prompt) + " positions with capacity " +
                                std::to_string(capacity));
  pos_ = 0;
  capacity_ = capacity;
  k_cache_.assign(size_t(c.layers) * 2 * size_t(capacity) * size_t(c.kv_width()), bf16{});
  v_cache_.assign(k_cache_.size(), bf16{});
  forward(embeds, prompt);
  const int H = c.hidden;
  if (all) rh::rms_norm(h_.data(), 2 * prompt, w_.norm.ptr(), H, c.eps, all);
  for (int b = 0; b < 2; ++b)
    rh::rms_norm(h_.data() + (size_t(b) * size_t(prompt) + size_t(prompt - 1)) * size_t(H), 1, w_.norm.ptr(), H,
                 c.eps, last + size_t(b) * size_t(H));
  last_.assign(last, last + 2 * size_t(H));
}

void LmHostArm::decode(const bf16* embeds, bf16* last) {
  forward(embeds, 1);
  rh::rms_norm(h_.data(), 2, w_.norm.ptr(), w_.cfg.hidden, w_.cfg.eps, last);
  last_.assign(last, last + 2 * size_t(w_.cfg.hidden));
}

void LmHostArm::head(const bf16* last, bf16* logits) {
  const int H = w_.cfg.hidden, K = kSampledColumns;
  std::vector<bf16> eos(2), codes(2 * size_t(kSemanticVocab));
  rh::linear(last, 2, w_.head_eos.ptr(), 1, H, eos.data(), threads_);
  rh::linear(last, 2, w_.head_codes.ptr(), kSemanticVocab, H, codes.data(), threads_);
  for (int b = 0; b < 2; ++b) {
    logits[size_t(b) * K] = eos[size_t(b)];
    std::memcpy(logits + size_t(b) * K + 1, codes.data() + size_t(b) * kSemanticVocab, kSemanticVocab * sizeof(bf16));
  }
}

LmSample LmHostArm::sample_last(const LmDraws& draws, bool mask) {
  if (last_.empty()) throw std::logic_error("lm host arm: sample_last before prefill");
  logits_.resize(2 * size_t(kSampledColumns));
  head(last_.data(), logits_.data());
  if (mask) mask_eos(logits_.data());
  return lm_sample(logits_.data(), draws, kCfgScale, kCfgTopK, kTopK, nullptr, nullptr);
}

}  // namespace music3::lm
