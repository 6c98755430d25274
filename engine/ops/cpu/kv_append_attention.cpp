// kv_append_attention on the CPU: for each token t in order, the CPU providers of
// kv_append (its query into a host buffer, k and v into the caches at pos + t) and then
// attention_decode over length pos + t + 1, so the bits are those of the two ops.
#include <vector>

#include "engine/core/bf16.h"
#include "engine/ops/cpu/cpu_providers.h"
#include "engine/ops/ops.h"

namespace music3::ops {

void kv_append_attention_cpu(const Queue& q, const void* args) {
  const auto& p = *static_cast<const KvAppendAttentionArgs*>(args);
  const int64_t batch = p.k_cache.shape[0], width = p.out.shape[1], tokens = p.qkv.shape[0] / batch;
  std::vector<bf16> query(static_cast<size_t>(batch * width));
  const Tensor query_view{query.data(), DType::BF16, {batch, width}, DeviceType::CPU};
  for (int64_t t = 0; t < tokens; ++t) {
    Tensor qkv_t = p.qkv, out_t = p.out;
    qkv_t.data = p.qkv.as<bf16>() + t * batch * 3 * width;
    qkv_t.shape = {batch, 3 * width};
    out_t.data = p.out.as<bf16>() + t * batch * width;
    out_t.shape = {batch, width};
    const int pos = p.pos + static_cast<int>(t);
    const KvAppendArgs append{qkv_t, query_view, p.k_cache, p.v_cache, pos};
    kv_append_cpu(q, &append);
    const AttentionDecodeArgs attend{query_view, p.k_cache, p.v_cache, out_t, pos + 1, p.heads, p.scale};
    attention_decode_cpu(q, &attend);
  }
}

}  // namespace music3::ops
