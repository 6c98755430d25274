// kv_append on the CPU: for each batch row b (one per parallel_for index) copies
// qkv[b, 0:H] to q_out[b, :], qkv[b, H:2H] to k_cache[b, pos, :] and qkv[b, 2H:3H]
// to v_cache[b, pos, :]. Pure copies: bits in, the same bits out.
#include <cstring>

#include "engine/core/bf16.h"
#include "engine/core/parallel.h"
#include "engine/ops/cpu/cpu_providers.h"
#include "engine/ops/ops.h"

namespace music3::ops {

void kv_append_cpu(const Queue& q, const void* args) {
  const auto& p = *static_cast<const KvAppendArgs*>(args);
  const int64_t batch = p.qkv.shape[0], width = p.q_out.shape[1], tmax = p.k_cache.shape[1];
  const size_t row_bytes = static_cast<size_t>(width) * sizeof(bf16);
  const bf16* qkv = p.qkv.as<const bf16>();
  parallel_for(batch, q.threads, [&](int64_t begin, int64_t end) {
    for (int64_t b = begin; b < end; ++b) {
      const bf16* src = qkv + b * 3 * width;
      const int64_t cache_row = (b * tmax + p.pos) * width;
      std::memcpy(p.q_out.as<bf16>() + b * width, src, row_bytes);
      std::memcpy(p.k_cache.as<bf16>() + cache_row, src + width, row_bytes);
      std::memcpy(p.v_cache.as<bf16>() + cache_row, src + 2 * width, row_bytes);
    }
  });
}

}  // namespace music3::ops
