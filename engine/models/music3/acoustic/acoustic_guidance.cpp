#include "engine/models/music3/acoustic/acoustic_guidance.h"

namespace music3::acoustic {

void guide(const bf16* cond, const bf16* uncond, bf16* out, int64_t n) {
  for (int64_t i = 0; i < n; ++i) {
    const float u = to_f32(uncond[i]);
    const float shift = round_bf16(to_f32(cond[i]) - u);
    const float scaled = round_bf16(kGuidanceScale * shift);
    out[i] = to_bf16(u + scaled);
  }
}

}  // namespace music3::acoustic
