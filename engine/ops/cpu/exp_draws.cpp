// exp_draws on the CPU: out[i] = sampler::exp1_draw(seed, frame, step, i), split
// over i with parallel_for (each draw is a pure function of its key and index).
#include "engine/core/parallel.h"
#include "engine/ops/cpu/cpu_providers.h"
#include "engine/ops/ops.h"
#include "engine/ops/sampler_math.h"

namespace music3::ops {

void exp_draws_cpu(const Queue& q, const void* args) {
  const auto& p = *static_cast<const ExpDrawsArgs*>(args);
  float* out = p.out.as<float>();
  parallel_for(p.out.shape[0], q.threads, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i)
      out[i] = sampler::exp1_draw(p.seed, p.frame, p.step, static_cast<uint32_t>(i));
  });
}

}  // namespace music3::ops
