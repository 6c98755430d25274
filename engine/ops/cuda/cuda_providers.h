// The CUDA providers, one per op (each in its own file, contract in ops.h), and
// their registration (CUDA builds only). Each takes the op's argument struct,
// already validated by the entry point, enqueues its kernels on the queue's
// stream, checks every CUDA call and every launch, and throws naming the op.
// Thread-safety: as ops.h: providers run on the calling thread, ordered on the queue's stream.
#pragma once
#include "engine/core/queue.h"

namespace music3::ops {

struct Conv1dArgs;  // engine/ops/vocoder_ops.h

void rms_norm_cuda(const Queue& q, const void* args);
void matmul_bt_gemv_cuda(const Queue& q, const void* args);
bool matmul_bt_gemv_supports(const void* args);  // M <= 4, no bias
void matmul_bt_cublas_cuda(const Queue& q, const void* args);
bool matmul_bt_cublas_supports(const void* args);  // no bias
void matmul_bt_gemv_packed_cuda(const Queue& q, const void* args);
bool matmul_bt_gemv_packed_supports(const void* args);  // M <= 2, no bias, K in (10240, 12288], aligned
void matmul_bt_gemv_l2_cuda(const Queue& q, const void* args);         // supports: matmul_bt_gemv_supports
void matmul_bt_gemv_packed_l2_cuda(const Queue& q, const void* args);  // supports: matmul_bt_gemv_packed_supports
void attention_decode_cuda(const Queue& q, const void* args);
void silu_and_mul_cuda(const Queue& q, const void* args);
bool matmul_bt_silu_gemv_supports(const void* args);  // the GEMV's fast shapes: M <= 4, K % 8 == 0, K bounded, aligned
void matmul_bt_silu_gemv_cuda(const Queue& q, const void* args);
void matmul_bt_silu_gemv_l2_cuda(const Queue& q, const void* args);  // supports: matmul_bt_silu_gemv_supports
// M <= 2 unbroadcast rows, K % 8 == 0, K <= 8192, 16-byte aligned x, r, w and b
void add_cuda(const Queue& q, const void* args);
void embedding_gather_cuda(const Queue& q, const void* args);
void kv_append_cuda(const Queue& q, const void* args);
void cfg_topk_sample_cuda(const Queue& q, const void* args);
void exp_draws_cuda(const Queue& q, const void* args);
bool exp_draws_cuda_supports(const void* args);
void add_rms_norm_cuda(const Queue& q, const void* args);
void kv_append_attention_cuda(const Queue& q, const void* args);
void conv1d_cuda(const Queue& q, const void* args);
bool conv1d_cublas_supports(const void* args);  // TapMajor or OutTapIn weights
#ifdef MUSIC3_WITH_CUTLASS
void conv1d_cutlass_cuda(const Queue& q, const void* args);
bool conv1d_cutlass_supports(const void* args);  // OutTapIn weights, K > 1, Cin and Cout multiples of 8
void conv1d_cutlass_sm90_cuda(const Queue& q, const void* args);
bool conv1d_cutlass_sm90_supports(const void* args);  // plain calls: compute capability 9.0 and conv1d_cutlass_sm90_takes()
bool conv1d_cutlass_sm90_fused_supports(const void* args);  // the same, for calls with a residual epilogue
// Host code, any machine: channels-last activations, OutTapIn weights, 16-byte aligned tensors, a shape one of the
// sm90 tiles takes and CUTLASS's can_implement() accepts (the vocoder's routing gate checks it without a device).
bool conv1d_cutlass_sm90_takes(const Conv1dArgs& p);
#endif
#ifdef MUSIC3_WITH_CUDNN
void conv1d_cudnn_cuda(const Queue& q, const void* args);
bool conv1d_cudnn_supports(const void* args);  // OutInTap weights
#endif
void conv1d_narrow_staged_cuda(const Queue& q, const void* args);
bool conv1d_narrow_staged_supports(const void* args);  // plain, channels-last, Cout <= 4, Cin % 8 == 0, x 16-byte aligned
void conv_transpose1d_cuda(const Queue& q, const void* args);
void conv_transpose1d_staged_cuda(const Queue& q, const void* args);
bool conv_transpose1d_staged_supports(const void* args);  // channels-last, K = 2 stride, Cout % 8 == 0, 16-byte aligned
void snake_cuda(const Queue& q, const void* args);
void snake_table_cuda(const Queue& q, const void* args);
bool snake_table_supports(const void* args);  // up to 2,048 channels, 80 KiB of shared memory per block
void tanh_cuda(const Queue& q, const void* args);
void gqa_attention_cuda(const Queue& q, const void* args);
void gqa_attention_fixed_cuda(const Queue& q, const void* args);
bool gqa_attention_fixed_supports(const void* args);  // decode steps at D 128, G 4 (gqa_attention_fixed.cu)
void layer_norm_cuda(const Queue& q, const void* args);
void self_attention_cuda(const Queue& q, const void* args);
bool self_attention_supports(const void* args);  // head width D <= 64
#ifdef MUSIC3_WITH_CUDNN_FRONTEND
void self_attention_cudnn_cuda(const Queue& q, const void* args);
bool self_attention_cudnn_supports(const void* args);  // D a multiple of 8 up to 128, qkv and out 16-byte aligned
#endif
void place_rows_cuda(const Queue& q, const void* args);
void guided_euler_cuda(const Queue& q, const void* args);
void qk_norm_rope_cuda(const Queue& q, const void* args);
bool lm_sample_cuda_supports(const void* args);  // K <= 16,896
void lm_sample_cuda(const Queue& q, const void* args);
bool feedback_embedding_cuda_supports(const void* args);  // at most 16 codes
void feedback_embedding_cuda(const Queue& q, const void* args);
bool matmul_bt_cublaslt_supports(const void* args);  // a bias
void matmul_bt_cublaslt_cuda(const Queue& q, const void* args);
bool matmul_bt_tuned_supports(const void* args);  // M >= 5, bias or not, operands 16-byte aligned
void matmul_bt_tuned_cuda(const Queue& q, const void* args);

}  // namespace music3::ops
