// matmul_bt_swiglu on the CPU: silu_and_mul into a host buffer [M, I], then matmul_bt
// against b, both through their CPU providers, so the bits are those of the two ops.
#include <vector>

#include "engine/core/bf16.h"
#include "engine/ops/cpu/cpu_providers.h"
#include "engine/ops/ops.h"

namespace music3::ops {

void matmul_bt_swiglu_cpu(const Queue& q, const void* args) {
  const auto& p = *static_cast<const MatmulBTSwigluArgs*>(args);
  const int64_t rows = p.gate_up.shape[0], inner = p.gate_up.shape[1] / 2;
  std::vector<bf16> act(static_cast<size_t>(rows * inner));
  const Tensor act_view{act.data(), DType::BF16, {rows, inner}, DeviceType::CPU};
  const SiluAndMulArgs silu{p.gate_up, act_view};
  silu_and_mul_cpu(q, &silu);
  const MatmulBTArgs mm{act_view, p.b, p.out};
  matmul_bt_cpu(q, &mm);
}

}  // namespace music3::ops
