#include "bench/depth/depth_op_costs.h"

#include <utility>
#include <vector>

#include "engine/ops/ops.h"

namespace music3::bench {
namespace {

struct Role {
  const char* name;
  int64_t n, k;
  int m;  // 0: any row count
};

}  // namespace

void DepthOpLabels::forget_buffers() {
  std::lock_guard<std::mutex> lock(mu_);
  roles_.clear();
}

std::string DepthOpLabels::gemm_role(int64_t m, int64_t n, int64_t k, const void* out) {
  const int64_t H = cfg_.hidden, I = cfg_.intermediate, V = cfg_.vocab;
  // In the order the arm first issues them in a frame (depth_device_arm.cpp: issue_frame_body, forward).
  const Role order[] = {{"projection (last hidden)", H, H, 2}, {"projection (c0, codes)", H, H, 1},
                        {"qkv", 3 * H, H, 0},  {"wo", H, H, 0}, {"gate_up", 2 * I, H, 0},
                        {"down", H, I, 0},     {"head", V, H, 0}};
  std::vector<const char*> fits;
  for (const Role& r : order)
    if (r.n == n && r.k == k && (!r.m || r.m == m)) fits.push_back(r.name);
  if (fits.empty()) return std::to_string(n) + "x" + std::to_string(k);
  if (fits.size() == 1) return fits.front();  // a shape of its own: any buffer (the head writes a row pair per step)
  std::lock_guard<std::mutex> lock(mu_);
  if (const auto it = roles_.find(out); it != roles_.end()) return it->second;
  for (const char* name : fits) {
    bool held = false;
    for (const auto& [buffer, role] : roles_) held = held || role == name;
    if (!held) return roles_[out] = name;
  }
  return fits.back();
}

OpCost DepthOpLabels::operator()(ops::OpId op, const void* args) {
  using ops::OpId;
  switch (op) {
    case OpId::MatmulBT: {
      const auto& p = *static_cast<const ops::MatmulBTArgs*>(args);
      const int64_t m = p.a.shape[0], n = p.b.shape[0], k = p.a.shape[1];
      return {"matmul_bt " + gemm_role(m, n, k, p.out.data), 2.0 * double(m) * double(n) * double(k),
              tensor_bytes({&p.a, &p.b, &p.out, &p.bias})};
    }
    case OpId::AddRmsNorm: {
      const auto& p = *static_cast<const ops::AddRmsNormArgs*>(args);
      return {"add_rms_norm", 0, tensor_bytes({&p.x, &p.r, &p.w, &p.h_out, &p.a_out})};
    }
    case OpId::KvAppendAttention: {
      const auto& p = *static_cast<const ops::KvAppendAttentionArgs*>(args);
      return {"kv_append_attention", 0, tensor_bytes({&p.qkv, &p.out})};  // the cache prefix: at most 8 positions
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
      const std::string gemm =
          p.gate_up.data ? "matmul_bt_silu gate_up" : "matmul_bt " + gemm_role(m, n, k, p.out.data);
      return {"add_rms_norm + " + gemm, 2.0 * double(m) * double(n) * double(k),
              tensor_bytes({&p.x, &p.r, &p.w, &p.h_out, &p.b, &p.out})};
    }
    case OpId::CfgTopkSample: {
      const auto& p = *static_cast<const ops::CfgTopkSampleArgs*>(args);
      return {"cfg_topk_sample", 0, tensor_bytes({&p.logits, &p.exp_draws, &p.guided_out})};
    }
    case OpId::EmbeddingGather: {
      const auto& p = *static_cast<const ops::EmbeddingGatherArgs*>(args);
      return {"embedding_gather", 0, 2 * tensor_bytes({&p.out})};
    }
    case OpId::ExpDraws: {
      const auto& p = *static_cast<const ops::ExpDrawsArgs*>(args);
      return {"exp_draws", 0, tensor_bytes({&p.out})};
    }
    default: return {ops::op_name(op), 0, 0};
  }
}

OpLabeler depth_op_labeler(std::shared_ptr<DepthOpLabels> labels) {
  return [labels = std::move(labels)](ops::OpId op, const void* args) { return (*labels)(op, args); };
}

}  // namespace music3::bench
