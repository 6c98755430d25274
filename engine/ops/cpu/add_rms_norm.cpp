// add_rms_norm on the CPU: the CPU providers of add (h_out = x + r) and then rms_norm
// (a_out = rms_norm(h_out)), so the bits are those of the two ops by construction.
#include "engine/ops/cpu/cpu_providers.h"
#include "engine/ops/ops.h"

namespace music3::ops {

void add_rms_norm_cpu(const Queue& q, const void* args) {
  const auto& p = *static_cast<const AddRmsNormArgs*>(args);
  const AddArgs sum{p.x, p.r, p.h_out};
  add_cpu(q, &sum);
  const RmsNormArgs norm{p.h_out, p.w, p.a_out, p.eps};
  rms_norm_cpu(q, &norm);
}

}  // namespace music3::ops
