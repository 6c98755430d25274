// Flow-sampler op entry points: validate against flow_ops.h, then run the registry's provider.
#include "engine/ops/flow_ops.h"

#include <cmath>

#include "engine/ops/op_checks.h"
#include "engine/ops/op_observer.h"
#include "engine/ops/registry.h"

namespace music3::ops {

void guided_euler(const Queue& q, const Tensor& pair, const Tensor& x, float scale, float dt) {
  const char* op = "guided_euler";
  check_tensor(op, "pair", pair, DType::BF16, 2, q);
  check_tensor(op, "x", x, DType::BF16, 2, q);
  check_dim(op, "pair", pair, 0, 2 * x.shape[0], "2 x the rows of 'x' (conditional, unconditional)");
  check_dim(op, "pair", pair, 1, x.shape[1], "the width of 'x'");
  check_disjoint(op, "x", x, "pair", pair);
  if (!std::isfinite(scale)) fail_scalar(op, "scale", "must be finite, got " + std::to_string(scale));
  if (!std::isfinite(dt)) fail_scalar(op, "dt", "must be finite, got " + std::to_string(dt));
  GuidedEulerArgs a{pair, x, scale, dt};
  dispatch(OpId::GuidedEuler, q, &a);
}

}  // namespace music3::ops
