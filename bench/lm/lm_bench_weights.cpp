#include "bench/lm/lm_bench_weights.h"

#include <memory>
#include <stdexcept>
#include <vector>

#include "bench/support/uniform_bf16.h"
#include "engine/models/music3/lm/lm_ids.h"

namespace music3::bench {

lm::LmConfig lm_bench_geometry(const std::string& name) {
  if (name == "full") return lm::LmConfig::full();
  if (name == "small") {
    lm::LmConfig c;
    c.hidden = 256;
    c.intermediate = 768;
    c.layers = 2;
    c.heads = 4;
    c.kv_heads = 2;
    c.head_dim = 64;
    return c;
  }
  throw std::invalid_argument("bench-lm: unknown geometry '" + name + "'");
}

lm::LmWeights synthetic_lm_weights(const lm::LmConfig& c, uint64_t seed) {
  const int64_t H = c.hidden, I = c.intermediate, Q = c.q_width(), KV = c.kv_width(), D = c.head_dim;
  // One layer's matrices in one block: q, k, v, o, gate, up, down.
  const Shape shapes[] = {{Q, H}, {KV, H}, {KV, H}, {H, Q}, {I, H}, {I, H}, {H, I}};
  size_t total = 0;
  for (const Shape& s : shapes) total += size_t(s.numel());
  auto storage = std::make_shared<std::vector<bf16>>(uniform_bf16(total, seed, 0.02f));
  auto ones = std::make_shared<std::vector<bf16>>(size_t(std::max(H, D)), to_bf16(1.0f));
  std::vector<runtime::HostTensor> views;
  size_t at = 0;
  for (const Shape& s : shapes) {
    views.push_back(runtime::HostTensor::mapped(s, storage->data() + at, storage));
    at += size_t(s.numel());
  }
  lm::LmWeights w;
  w.cfg = c;
  w.norm = runtime::HostTensor::mapped({H}, ones->data(), ones);
  w.head_eos = runtime::HostTensor({1, H});
  const auto head = uniform_bf16(size_t(lm::kSemanticVocab) * size_t(H) + size_t(H), seed + 1, 0.02f);
  std::copy(head.begin(), head.begin() + H, w.head_eos.mutable_ptr());
  w.head_codes = runtime::HostTensor({lm::kSemanticVocab, H});
  std::copy(head.begin() + H, head.end(), w.head_codes.mutable_ptr());
  for (int l = 0; l < c.layers; ++l) {
    lm::LmLayerWeights L;
    L.input_norm = L.post_norm = runtime::HostTensor::mapped({H}, ones->data(), ones);
    L.q_norm = L.k_norm = runtime::HostTensor::mapped({D}, ones->data(), ones);
    L.wq = views[0];
    L.wk = views[1];
    L.wv = views[2];
    L.wo = views[3];
    L.w_gate = views[4];
    L.w_up = views[5];
    L.w_down = views[6];
    w.layers.push_back(L);
  }
  return w;
}

double step_bytes(const lm::LmConfig& c, int kv) {
  const double H = c.hidden, I = c.intermediate, Q = c.q_width(), KV = c.kv_width(), D = c.head_dim;
  const double layer = (Q + 2 * KV) * H + H * Q + 2 * I * H + H * I + 2 * H + 2 * D;
  const double cache = 2.0 /*K and V*/ * 2 /*rows*/ * double(kv) * KV;
  return 2.0 * (c.layers * (layer + cache) + H + double(lm::kSampledColumns) * H);
}

}  // namespace music3::bench
