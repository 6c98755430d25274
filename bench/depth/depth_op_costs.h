// The labeler depth-step-breakdown gives its op timeline (bench/support/op_timeline.h): each op the depth device arm
// (depth_device_arm.h) issues for one frame (seven forward calls of both CFG rows, their heads, samplers and the code
// embeddings), named by its role, with its FLOPs (GEMMs only) and the bytes it reads and writes (every tensor once):
//  - matmul_bt: "projection (last hidden)", "projection (c0, codes)", "qkv", "wo", "gate_up", "down", "head". At the
//    release geometry two pairs share a shape (qkv and gate_up are both [3H = 2I, H]; the last hidden's projection and
//    wo are both [H, H] at two rows), so where several roles fit a call's shape its role is that of its output
//    buffer, and a new buffer takes the first of them, in the order the arm first issues them, that no buffer holds;
//  - "add_rms_norm" (the position add with the first norm, the residual adds with the norms after them),
//    "kv_append_attention", "silu_and_mul", "cfg_topk_sample", "embedding_gather", "exp_draws";
//  - any other call as its op's name.
// Contract: forget_buffers() drops the buffer -> role map (a new arm's buffers may reuse an earlier arm's
// addresses): call it whenever a new arm is made. Thread-safe (one mutex).
#pragma once
#include <map>
#include <memory>
#include <mutex>
#include <string>

#include "bench/support/op_timeline.h"
#include "engine/models/music3/depth/depth_config.h"

namespace music3::bench {

class DepthOpLabels {
 public:
  explicit DepthOpLabels(const depth::DepthConfig& cfg) : cfg_(cfg) {}
  void forget_buffers();
  OpCost operator()(ops::OpId op, const void* args);

 private:
  std::string gemm_role(int64_t m, int64_t n, int64_t k, const void* out);

  depth::DepthConfig cfg_;
  std::mutex mu_;
  std::map<const void*, std::string> roles_;  // output buffer -> role
};

// A labeler over shared labels (the tool keeps the pointer to call forget_buffers()).
OpLabeler depth_op_labeler(std::shared_ptr<DepthOpLabels> labels);

}  // namespace music3::bench
