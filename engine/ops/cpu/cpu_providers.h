// The CPU providers, one per op (each in its own file, contract in ops.h), and
// their registration. Each takes the op's argument struct from ops.h, already
// validated by the entry point, and splits work with parallel_for over output
// elements or rows, so its bits never depend on Queue::threads.
#pragma once
#include "engine/core/queue.h"

namespace music3::ops {

void rms_norm_cpu(const Queue& q, const void* args);
void matmul_bt_cpu(const Queue& q, const void* args);
void attention_decode_cpu(const Queue& q, const void* args);
void silu_and_mul_cpu(const Queue& q, const void* args);
void add_cpu(const Queue& q, const void* args);
void embedding_gather_cpu(const Queue& q, const void* args);
void kv_append_cpu(const Queue& q, const void* args);
void cfg_topk_sample_cpu(const Queue& q, const void* args);
void exp_draws_cpu(const Queue& q, const void* args);
void add_rms_norm_cpu(const Queue& q, const void* args);
void kv_append_attention_cpu(const Queue& q, const void* args);
void conv1d_cpu(const Queue& q, const void* args);
bool conv1d_cpu_supports(const void* args);  // conv1d_is_plain: the entry adds a residual epilogue after it
void conv_transpose1d_cpu(const Queue& q, const void* args);
void snake_cpu(const Queue& q, const void* args);
void tanh_cpu(const Queue& q, const void* args);
void gqa_attention_cpu(const Queue& q, const void* args);
void layer_norm_cpu(const Queue& q, const void* args);
void self_attention_cpu(const Queue& q, const void* args);
void place_rows_cpu(const Queue& q, const void* args);
void guided_euler_cpu(const Queue& q, const void* args);
void lm_sample_cpu(const Queue& q, const void* args);
void feedback_embedding_cpu(const Queue& q, const void* args);
void qk_norm_rope_cpu(const Queue& q, const void* args);

}  // namespace music3::ops
