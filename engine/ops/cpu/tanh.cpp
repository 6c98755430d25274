// tanh on the CPU: out = bf16(std::tanh(f32(x))), split by index.
#include <cmath>

#include "engine/core/bf16.h"
#include "engine/core/parallel.h"
#include "engine/ops/cpu/cpu_providers.h"
#include "engine/ops/vocoder_ops.h"

namespace music3::ops {

void tanh_cpu(const Queue& q, const void* args) {
  const auto& p = *static_cast<const TanhArgs*>(args);
  const bf16* x = p.x.as<const bf16>();
  bf16* out = p.out.as<bf16>();
  parallel_for(p.x.numel(), q.threads, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) out[i] = to_bf16(std::tanh(to_f32(x[i])));
  });
}

}  // namespace music3::ops
