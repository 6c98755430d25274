// qk_norm_rope on the CPU: its three steps in order (head_norm_and_rope.h): head_rms_norm_cpu of the q heads with
// q_norm, then of the k heads with k_norm, then rope_cpu of every q and k head at the positions from pos[0].
#include "engine/ops/cpu/cpu_providers.h"
#include "engine/ops/cpu/head_norm_and_rope.h"
#include "engine/ops/lm_ops.h"

namespace music3::ops {

void qk_norm_rope_cpu(const Queue& q, const void* args) {
  const auto& a = *static_cast<const QkNormRopeArgs*>(args);
  const HeadRmsNormArgs q_heads{a.x, a.q_norm, 0, a.heads, a.eps};
  const HeadRmsNormArgs k_heads{a.x, a.k_norm, a.heads, a.kv_heads, a.eps};
  const int64_t pos0 = *a.pos.as<const int32_t>();
  const RopeArgs rotary{a.x, a.cos, a.sin, pos0, a.heads + a.kv_heads, a.batch, static_cast<int>(a.q_norm.shape[0])};
  head_rms_norm_cpu(q, q_heads);
  head_rms_norm_cpu(q, k_heads);
  rope_cpu(q, rotary);
}

}  // namespace music3::ops
