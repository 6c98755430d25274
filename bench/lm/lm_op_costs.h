// The labeler lm-step-breakdown gives its op timeline (bench/support/op_timeline.h): each op the LM device arm
// (lm_device_arm.h) issues for one decode step of both CFG rows plus the sliced head, named by its role, with its
// FLOPs (GEMMs only) and the bytes it reads and writes (every tensor once; bf16):
//  - matmul_bt by (N, K) at M = 2: "matmul_bt qkv", "matmul_bt wo", "matmul_bt gate_up", "matmul_bt down",
//    "matmul_bt head (sliced)"; FLOPs 2 M N K, bytes the weight, the input and the output;
//  - "rms_norm" (the first layer's input norm), "add_rms_norm" (the residual adds and the norms after them),
//    "qk_norm_rope", "silu_and_mul";
//  - "gqa_attention": the step's query rows against the K/V prefix of `kv` positions per row (bytes: that prefix of
//    both caches, the qkv rows and the output; the caches' length lives on the device, so the caller says it);
//  - any other call as its op's name and shape.
// Contract: pure; the returned labeler holds copies of cfg and kv. Thread-safe.
#pragma once
#include "bench/support/op_timeline.h"
#include "engine/models/music3/lm/lm_config.h"

namespace music3::bench {

OpLabeler lm_op_labeler(const lm::LmConfig& cfg, int kv);

}  // namespace music3::bench
