// guided_euler on the CPU: one pass over the R x C latents, flow_math.h's arithmetic per element.
#include "engine/core/bf16.h"
#include "engine/ops/cpu/cpu_providers.h"
#include "engine/ops/flow_math.h"
#include "engine/ops/flow_ops.h"

namespace music3::ops {

void guided_euler_cpu(const Queue&, const void* args) {
  const auto& a = *static_cast<const GuidedEulerArgs*>(args);
  const int64_t rows = a.x.shape[0], width = a.x.shape[1];
  const bf16* pair = a.pair.as<const bf16>();
  bf16* x = a.x.as<bf16>();
  const float dt = round_bf16(a.dt);
  for (int64_t r = 0; r < rows; ++r) {
    const bf16* cond = pair + 2 * r * width;
    const bf16* uncond = cond + width;
    bf16* row = x + r * width;
    for (int64_t c = 0; c < width; ++c) {
      const float v = flow::guided_velocity(to_f32(cond[c]), to_f32(uncond[c]), a.scale);
      row[c] = to_bf16(flow::euler_update(to_f32(row[c]), v, dt));
    }
  }
}

}  // namespace music3::ops
