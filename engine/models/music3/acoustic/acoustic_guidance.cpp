#include "engine/models/music3/acoustic/acoustic_guidance.h"

#include "engine/ops/flow_math.h"

namespace music3::acoustic {

void guide(const bf16* cond, const bf16* uncond, bf16* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) out[i] = to_bf16(flow::guided_velocity(to_f32(cond[i]), to_f32(uncond[i]), kGuidanceScale));
}

}  // namespace music3::acoustic
