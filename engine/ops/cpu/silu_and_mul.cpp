// silu_and_mul on the CPU: one row per parallel_for index.
// out[m, i] = bf16( bf16(g / (1 + std::exp(-g))) * u ), g = f32(in[m, i]), u = f32(in[m, I + i]),
// the order and rounding points of torch's F.silu(gate) * up in bf16; with gate_second the halves swap roles
// (g = in[m, I + i], u = in[m, i]).
#include <cmath>

#include "engine/core/bf16.h"
#include "engine/core/parallel.h"
#include "engine/ops/cpu/cpu_providers.h"
#include "engine/ops/ops.h"

namespace music3::ops {

void silu_and_mul_cpu(const Queue& q, const void* args) {
  const auto& p = *static_cast<const SiluAndMulArgs*>(args);
  const int64_t rows = p.out.shape[0], inner = p.out.shape[1];
  const bf16* in = p.gate_up.as<const bf16>();
  bf16* out = p.out.as<bf16>();
  parallel_for(rows, q.threads, [&](int64_t begin, int64_t end) {
    for (int64_t m = begin; m < end; ++m) {
      const bf16* row = in + m * 2 * inner;
      const bf16* gate = p.gate_second ? row + inner : row;
      const bf16* up = p.gate_second ? row : row + inner;
      bf16* o = out + m * inner;
      for (int64_t i = 0; i < inner; ++i) {
        const float g = to_f32(gate[i]);
        const float silu = round_bf16(g / (1.0f + std::exp(-g)));
        o[i] = to_bf16(silu * to_f32(up[i]));
      }
    }
  });
}

}  // namespace music3::ops
