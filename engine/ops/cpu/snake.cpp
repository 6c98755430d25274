// snake on the CPU: one (batch, channel) row per parallel_for index (either activation layout), the six ops of upstream's Snake each
// rounded to bf16: bf16(x + bf16(bf16(1/bf16(a + 1e-9)) * bf16(bf16(sin(bf16(a x)))^2))).
#include "engine/core/bf16.h"
#include "engine/core/parallel.h"
#include "engine/ops/cpu/cpu_providers.h"
#include "engine/ops/snake_sin_square.h"
#include "engine/ops/vocoder_ops.h"

namespace music3::ops {

void snake_cpu(const Queue& q, const void* args) {
  const auto& p = *static_cast<const SnakeArgs*>(args);
  const ActAxes act = act_axes(p.act);
  const int64_t channels = p.x.shape[act.channels], time = p.x.shape[act.time];
  // The steps between channels and between samples: [B, C, T] or [B, T, C].
  const bool last = p.act == ActLayout::ChannelsLast;
  const int64_t step_c = last ? 1 : time, step_t = last ? channels : 1;
  const bf16* x = p.x.as<const bf16>();
  const bf16* alpha = p.alpha.as<const bf16>();
  bf16* out = p.out.as<bf16>();
  parallel_for(p.x.shape[0] * channels, q.threads, [&](int64_t begin, int64_t end) {
    for (int64_t row = begin; row < end; ++row) {
      const float a = to_f32(alpha[row % channels]);
      const float inv = round_bf16(1.0f / round_bf16(a + 1e-9f));
      const int64_t first = row / channels * channels * time + row % channels * step_c;
      for (int64_t i = first; i < first + time * step_t; i += step_t) {
        const float v = to_f32(x[i]);
        out[i] = to_bf16(v + round_bf16(inv * snake_sin_square(round_bf16(a * v))));
      }
    }
  });
}

}  // namespace music3::ops
