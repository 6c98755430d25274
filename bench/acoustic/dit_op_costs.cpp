#include "bench/acoustic/dit_op_costs.h"

#include <string>

#include "engine/ops/ops.h"
#include "engine/ops/transformer_ops.h"

namespace music3::bench {
namespace {

std::string dims(int64_t m, int64_t n, int64_t k) {
  return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
}

std::string gemm_role(const acoustic::DitConfig& c, int64_t L, int64_t m, int64_t n, int64_t k) {
  const int64_t D = c.inner(), F = c.ff_inner, C = c.in_channels, C2 = c.concat_channels();
  const int64_t M = 2 * (L + 1);
  if (m == M) {
    if (n == 3 * D && k == D) return "block matmul_bt qkv";
    if (n == D && k == D) return "block matmul_bt wo";
    if (n == 2 * F && k == D) return "block matmul_bt ff_in";
    if (n == D && k == F) return "block matmul_bt ff_out";
  }
  if (m == 2 * L && n == C2 && k == C2) return "pre matmul_bt pre_conv";
  if (m == 2 * L && n == D && k == C2) return "pre matmul_bt proj_in";
  if (m == 2 && n == D && k == c.fourier_dim) return "pre matmul_bt time linear_1";
  if (m == 2 && n == D && k == D) return "pre matmul_bt time linear_2";
  if (m == 2 * L && n == C && k == D) return "post matmul_bt proj_out";
  if (m == 2 * L && n == C && k == C) return "post matmul_bt post_conv";
  return "matmul_bt " + dims(m, n, k);
}

OpCost label(const acoustic::DitConfig& c, int64_t L, ops::OpId op, const void* args) {
  using ops::OpId;
  switch (op) {
    case OpId::MatmulBT: {
      const auto& p = *static_cast<const ops::MatmulBTArgs*>(args);
      const int64_t m = p.a.shape[0], n = p.b.shape[0], k = p.a.shape[1];
      return {gemm_role(c, L, m, n, k), 2.0 * double(m) * double(n) * double(k), tensor_bytes({&p.a, &p.b, &p.out, &p.bias})};
    }
    case OpId::LayerNorm: {
      const auto& p = *static_cast<const ops::LayerNormArgs*>(args);
      return {p.r.data ? "block add_layer_norm" : "block layer_norm", 0,
              tensor_bytes({&p.x, &p.r, &p.w, &p.b, &p.h_out, &p.a_out})};
    }
    case OpId::SiluAndMul: {
      const auto& p = *static_cast<const ops::SiluAndMulArgs*>(args);
      const bool ff = p.out.shape[1] == c.ff_inner;
      return {ff ? "block silu_and_mul ff" : "pre silu_and_mul time", 0, tensor_bytes({&p.gate_up, &p.out})};
    }
    case OpId::Add: {
      const auto& p = *static_cast<const ops::AddArgs*>(args);
      const int64_t w = p.out.shape[1];
      const std::string role = w == c.concat_channels() ? "pre add pre_conv residual"
                               : w == c.inner()         ? "block add residual (last block)"
                               : w == c.in_channels     ? "post add post_conv residual"
                                                        : "add " + p.out.describe();
      return {role, 0, tensor_bytes({&p.a, &p.b, &p.out})};
    }
    case OpId::SelfAttention: {
      const auto& p = *static_cast<const ops::SelfAttentionArgs*>(args);
      const double S = double(p.qkv.shape[0]) / p.batch, D = double(p.out.shape[1]);
      return {"block self_attention", 4.0 * p.batch * S * S * D, tensor_bytes({&p.qkv, &p.out, &p.cos, &p.sin})};
    }
    case OpId::PlaceRows: {
      const auto& p = *static_cast<const ops::PlaceRowsArgs*>(args);
      return {"pre place_rows", 0, 2 * tensor_bytes({&p.src})};
    }
    default: return {ops::op_name(op), 0, 0};
  }
}

}  // namespace

OpLabeler dit_op_labeler(const acoustic::DitConfig& cfg, int64_t L) {
  return [cfg, L](ops::OpId op, const void* args) { return label(cfg, L, op, args); };
}

}  // namespace music3::bench
