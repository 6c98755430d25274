// exp_draws on the CPU: out[s, i] = sampler::exp1_draw(seed, frame, step + s, i), split over the S x V draws
// with parallel_for (each draw is a pure function of its key and index).
#include "engine/core/parallel.h"
#include "engine/ops/cpu/cpu_providers.h"
#include "engine/ops/ops.h"
#include "engine/ops/sampler_math.h"

namespace music3::ops {

void exp_draws_cpu(const Queue& q, const void* args) {
  const auto& p = *static_cast<const ExpDrawsArgs*>(args);
  float* out = p.out.as<float>();
  const int64_t width = p.out.shape[p.out.shape.rank - 1];
  parallel_for(p.out.numel(), q.threads, [&](int64_t begin, int64_t end) {
    for (int64_t n = begin; n < end; ++n) {
      const int64_t s = n / width, i = n % width;
      out[n] = sampler::exp1_draw(p.seed, p.frame, p.step + static_cast<uint32_t>(s), static_cast<uint32_t>(i));
    }
  });
}

}  // namespace music3::ops
