// The labeler dit-step-breakdown gives its op timeline (bench/support/op_timeline.h): each op the DiT device arm
// (dit_device_arm.h) issues for one guided step at latent length L, named by its part and role, with its FLOPs and
// the bytes it reads and writes (every tensor once; bf16):
//  - matmul_bt by (M, N, K): the block's "qkv", "wo", "ff_in", "ff_out" (M = 2 (L + 1)); before the blocks
//    "pre_conv", "proj_in", "time linear_1", "time linear_2"; after them "proj_out", "post_conv"; FLOPs 2 M N K;
//  - layer_norm with a residual as "add_layer_norm", without as "layer_norm"; silu_and_mul on the FF ("ff") or
//    the time MLP ("time"); add by its width (the pre conv's residual, the last block's residual, the post conv's);
//    self_attention (FLOPs: q.k and p.v, 4 S^2 inner per branch); place_rows;
//  - any other call as its op's name and shape.
// Labels start with the part ("pre ", "block ", "post ") so a table in first-seen order reads top to bottom.
// Contract: pure; the returned labeler holds copies of cfg and L. Thread-safe.
#pragma once
#include <cstdint>

#include "bench/support/op_timeline.h"
#include "engine/models/music3/acoustic/dit_config.h"

namespace music3::bench {

OpLabeler dit_op_labeler(const acoustic::DitConfig& cfg, int64_t L);

}  // namespace music3::bench
