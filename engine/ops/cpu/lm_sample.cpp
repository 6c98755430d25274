// lm_sample on the CPU: lm_sample_rule (engine/ops/lm_sample_rule.h) over the tensors, on the calling thread.
#include "engine/ops/cpu/cpu_providers.h"
#include "engine/ops/lm_ops.h"
#include "engine/ops/lm_sample_rule.h"

namespace music3::ops {

void lm_sample_cpu(const Queue&, const void* args) {
  const auto& p = *static_cast<const LmSampleArgs*>(args);
  LmSampleDraws draws;
  draws.recorded = p.draws.data ? p.draws.as<const float>() : nullptr;
  draws.seed = p.seed;
  draws.iteration = p.iteration;
  draws.step = p.draw_step;
  draws.first_id = p.first_id;
  draws.next_id = p.next_id;
  const LmSampleOutcome o =
      lm_sample_rule(p.logits.as<const bf16>(), static_cast<int>(p.logits.shape[1]), draws, p.cfg_scale, p.cfg_top_k,
                     p.top_k, p.guided_out.data ? p.guided_out.as<float>() : nullptr,
                     p.probs_out.data ? p.probs_out.as<float>() : nullptr);
  p.column_out.as<int32_t>()[0] = o.column;
  p.nonfinite.as<uint32_t>()[0] += o.nonfinite;
}

}  // namespace music3::ops
