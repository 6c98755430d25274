// qk_norm_rope on the CPU: the three calls it fuses, in order, through the CPU providers of head_rms_norm
// (the q heads with q_norm, then the k heads with k_norm) and rope (every q and k head), so its bits are theirs.
#include "engine/ops/cpu/cpu_providers.h"
#include "engine/ops/lm_ops.h"

namespace music3::ops {

void qk_norm_rope_cpu(const Queue& q, const void* args) {
  const auto& a = *static_cast<const QkNormRopeArgs*>(args);
  const HeadRmsNormArgs q_heads{a.x, a.q_norm, 0, a.heads, a.eps};
  const HeadRmsNormArgs k_heads{a.x, a.k_norm, a.heads, a.kv_heads, a.eps};
  const RopeArgs rotary{a.x, a.cos, a.sin, a.pos, a.heads + a.kv_heads, a.batch, static_cast<int>(a.q_norm.shape[0])};
  head_rms_norm_cpu(q, &q_heads);
  head_rms_norm_cpu(q, &k_heads);
  rope_cpu(q, &rotary);
}

}  // namespace music3::ops
