#include "bench/lm/lm_op_costs.h"

#include <string>

#include "engine/models/music3/lm/lm_ids.h"
#include "engine/ops/lm_ops.h"
#include "engine/ops/ops.h"

namespace music3::bench {
namespace {

std::string gemm_role(const lm::LmConfig& c, int64_t n, int64_t k) {
  const int64_t H = c.hidden, Q = c.q_width(), KV = c.kv_width(), F = c.intermediate;
  if (n == Q + 2 * KV && k == H) return "matmul_bt qkv";
  if (n == H && k == Q) return "matmul_bt wo";
  if (n == 2 * F && k == H) return "matmul_bt gate_up";
  if (n == H && k == F) return "matmul_bt down";
  if (n == lm::kSampledColumns && k == H) return "matmul_bt head (sliced)";
  return "matmul_bt " + std::to_string(n) + "x" + std::to_string(k);
}

OpCost label(const lm::LmConfig& c, int kv, ops::OpId op, const void* args) {
  using ops::OpId;
  switch (op) {
    case OpId::MatmulBT: {
      const auto& p = *static_cast<const ops::MatmulBTArgs*>(args);
      const int64_t m = p.a.shape[0], n = p.b.shape[0], k = p.a.shape[1];
      return {gemm_role(c, n, k) + (m == 2 ? "" : " M " + std::to_string(m)),
              2.0 * double(m) * double(n) * double(k), tensor_bytes({&p.a, &p.b, &p.out, &p.bias})};
    }
    case OpId::RmsNorm: {
      const auto& p = *static_cast<const ops::RmsNormArgs*>(args);
      return {"rms_norm", 0, tensor_bytes({&p.x, &p.w, &p.out})};
    }
    case OpId::AddRmsNorm: {
      const auto& p = *static_cast<const ops::AddRmsNormArgs*>(args);
      return {"add_rms_norm", 0, tensor_bytes({&p.x, &p.r, &p.w, &p.h_out, &p.a_out})};
    }
    case OpId::QkNormRope: {
      const auto& p = *static_cast<const ops::QkNormRopeArgs*>(args);
      return {"qk_norm_rope", 0, 2 * tensor_bytes({&p.x}) + tensor_bytes({&p.q_norm, &p.k_norm})};
    }
    case OpId::SiluAndMul: {
      const auto& p = *static_cast<const ops::SiluAndMulArgs*>(args);
      return {"silu_and_mul", 0, tensor_bytes({&p.gate_up, &p.out})};
    }
    case OpId::MatmulBtSilu: {  // the fused gate_up + silu_and_mul: the GEMV's weights, activations and out
      const auto& p = *static_cast<const ops::MatmulBtSiluArgs*>(args);
      const int64_t m = p.a.shape[0], n = p.b.shape[0], k = p.a.shape[1];
      return {"matmul_bt_silu gate_up", 2.0 * double(m) * double(n) * double(k), tensor_bytes({&p.a, &p.b, &p.out})};
    }
    case OpId::AddRmsNormMatmulBt: {  // add_rms_norm in the next GEMV's prologue: the norm's and the GEMV's bytes
      const auto& p = *static_cast<const ops::AddRmsNormMatmulArgs*>(args);
      const int64_t m = p.h_out.shape[0], n = p.b.shape[0], k = p.h_out.shape[1];
      const std::string gemm = p.gate_up.data ? "matmul_bt_silu gate_up" : gemm_role(c, n, k);
      return {"add_rms_norm + " + gemm, 2.0 * double(m) * double(n) * double(k),
              tensor_bytes({&p.x, &p.r, &p.w, &p.h_out, &p.b, &p.out})};
    }
    case OpId::GqaAttention: {
      const auto& p = *static_cast<const ops::GqaAttentionArgs*>(args);
      const double rows = double(p.qkv.shape[0]), prefix = 2.0 * rows * kv * c.kv_width() * 2;  // K and V, bf16
      return {"gqa_attention", 0, prefix + tensor_bytes({&p.qkv, &p.out})};
    }
    default: return {ops::op_name(op), 0, 0};
  }
}

}  // namespace

OpLabeler lm_op_labeler(const lm::LmConfig& cfg, int kv) {
  return [cfg, kv](ops::OpId op, const void* args) { return label(cfg, kv, op, args); };
}

}  // namespace music3::bench
