// Registers every CUDA provider (called once from registry() in CUDA builds).
#include "engine/ops/cuda/cuda_providers.h"
#include "engine/ops/registry.h"

namespace music3::ops {

void register_cuda_providers(OpRegistry& r) {
  r.add({"cuda.rms_norm", OpId::RmsNorm, DeviceType::CUDA, 0, rms_norm_cuda});
  // The decode GEMV where it applies (M <= 4, no bias), cuBLAS for every shape without a bias.
  r.add({"cuda.matmul_bt.gemv", OpId::MatmulBT, DeviceType::CUDA, 1, matmul_bt_gemv_cuda, matmul_bt_gemv_supports});
  // The LM's down projection (K 12288, two rows) with the GEMV's activations packed, two blocks per multiprocessor
  // instead of one: the same bits; MUSIC3_DISABLE_PROVIDERS=cuda.matmul_bt.gemv.packed gives it back to the lone block.
  r.add({"cuda.matmul_bt.gemv.packed", OpId::MatmulBT, DeviceType::CUDA, 4, matmul_bt_gemv_packed_cuda,
         matmul_bt_gemv_packed_supports});
  r.add({"cuda.matmul_bt.cublas", OpId::MatmulBT, DeviceType::CUDA, 0, matmul_bt_cublas_cuda, matmul_bt_cublas_supports});
  // The decode GEMVs asking the block's next weight rows into L2 before pdl_wait() (gemv_bt.cuh: kL2AheadBytes), so
  // DRAM keeps streaming through the boundary before them (a norm, the attention's combine): the same kernels, so the
  // same bits. Opt-in (MUSIC3_ENABLE_PROVIDERS=cuda.matmul_bt.gemv.l2_ahead,cuda.matmul_bt.gemv.packed.l2_ahead,
  // cuda.matmul_bt_silu.gemv.l2_ahead) until the H200 has timed them (scripts/gpu-bench component l2-ahead).
  // Priorities 5 and 6: above every other GEMV, the packed one first, as without them.
  r.add({"cuda.matmul_bt.gemv.l2_ahead", OpId::MatmulBT, DeviceType::CUDA, 5, matmul_bt_gemv_l2_cuda,
         matmul_bt_gemv_supports, /*opt_in=*/true});
  r.add({"cuda.matmul_bt.gemv.packed.l2_ahead", OpId::MatmulBT, DeviceType::CUDA, 6, matmul_bt_gemv_packed_l2_cuda,
         matmul_bt_gemv_packed_supports, /*opt_in=*/true});
  // A bias (the addmm form): cuBLASLt with the bias epilogue, one rounding.
  r.add({"cuda.matmul_bt.cublaslt", OpId::MatmulBT, DeviceType::CUDA, 2, matmul_bt_cublaslt_cuda,
         matmul_bt_cublaslt_supports});
  // Every GEMM of 5 rows or more, bias or not: cuBLASLt on the fastest of the heuristic's candidates, timed once per
  // shape (matmul_bt_tuned.cpp). Opt-in (MUSIC3_ENABLE_PROVIDERS=cuda.matmul_bt.cublaslt.tuned): the timed choice
  // may differ between processes, and with it the bits, so by default one seed gives one file on every run.
  r.add({"cuda.matmul_bt.cublaslt.tuned", OpId::MatmulBT, DeviceType::CUDA, 3, matmul_bt_tuned_cuda,
         matmul_bt_tuned_supports, /*opt_in=*/true});
  r.add({"cuda.attention_decode", OpId::AttentionDecode, DeviceType::CUDA, 0, attention_decode_cuda});
  r.add({"cuda.silu_and_mul", OpId::SiluAndMul, DeviceType::CUDA, 0, silu_and_mul_cuda});
  // The gate_up GEMV with its silu_and_mul in the epilogue (matmul_bt_silu.cu): the two ops' bits in one kernel.
  // On an H100 at 889f101 it took the LM step at K/V 300 from 5.57 to 5.34 ms and the depth frame from 3.39 to
  // 3.29 ms (ab-bench, one binary); MUSIC3_DISABLE_PROVIDERS=cuda.matmul_bt_silu.gemv gives the call back to
  // ops.h's two ops.
  r.add({"cuda.matmul_bt_silu.gemv", OpId::MatmulBtSilu, DeviceType::CUDA, 1, matmul_bt_silu_gemv_cuda,
         matmul_bt_silu_gemv_supports});
  r.add({"cuda.matmul_bt_silu.gemv.l2_ahead", OpId::MatmulBtSilu, DeviceType::CUDA, 2, matmul_bt_silu_gemv_l2_cuda,
         matmul_bt_silu_gemv_supports, /*opt_in=*/true});
  r.add({"cuda.add", OpId::Add, DeviceType::CUDA, 0, add_cuda});
  r.add({"cuda.embedding_gather", OpId::EmbeddingGather, DeviceType::CUDA, 0, embedding_gather_cuda});
  r.add({"cuda.kv_append", OpId::KvAppend, DeviceType::CUDA, 0, kv_append_cuda});
  r.add({"cuda.cfg_topk_sample", OpId::CfgTopkSample, DeviceType::CUDA, 0, cfg_topk_sample_cuda});
  r.add({"cuda.exp_draws", OpId::ExpDraws, DeviceType::CUDA, 0, exp_draws_cuda, exp_draws_cuda_supports});
  r.add({"cuda.add_rms_norm", OpId::AddRmsNorm, DeviceType::CUDA, 0, add_rms_norm_cuda});
  r.add({"cuda.kv_append_attention", OpId::KvAppendAttention, DeviceType::CUDA, 0, kv_append_attention_cuda});
  // The cuBLAS GEMM per tap before cuDNN: on the H200 at 81fa2d8 a full 689-latent vocoder window took 44.1 ms with
  // it and 102 ms with cuDNN's legacy convolution (bench-vocoder, one process). cuDNN stays as the second provider
  // (closer to torch's bits: conv stages 0.99888 exact vs 0.676), reached with
  // MUSIC3_DISABLE_PROVIDERS=cuda.conv1d,cuda.conv1d.cutlass.
  r.add({"cuda.conv1d", OpId::Conv1d, DeviceType::CUDA, 1, conv1d_cuda, conv1d_cublas_supports});
  // CUTLASS's implicit GEMM first where the build has it: its OutTapIn staging becomes the preferred layout, and the
  // shapes it declines (1x1, channels off its 8-alignment) run on cuda.conv1d from the same staging. The cuBLAS and
  // cuDNN arms are reached with MUSIC3_DISABLE_PROVIDERS=cuda.conv1d.cutlass (and cuda.conv1d for cuDNN).
#ifdef MUSIC3_WITH_CUTLASS
  r.add({"cuda.conv1d.cutlass", OpId::Conv1d, DeviceType::CUDA, 2, conv1d_cutlass_cuda, conv1d_cutlass_supports});
  // CUTLASS 3's sm90 kernels (TMA + wgmma) ahead of it on an H200, for the channels-last shapes their tiles take
  // (conv1d_cutlass_sm90.cu); the SM80 kernels above run the rest and are reached alone with
  // MUSIC3_DISABLE_PROVIDERS=cuda.conv1d.cutlass_sm90.
  r.add({"cuda.conv1d.cutlass_sm90", OpId::Conv1d, DeviceType::CUDA, 3, conv1d_cutlass_sm90_cuda,
         conv1d_cutlass_sm90_supports});
  // The same kernels with the call's residual added in their epilogue; without it (MUSIC3_DISABLE_PROVIDERS=
  // cuda.conv1d.cutlass_sm90.fused) the entry runs the conv, then the separate add: the one-binary A/B.
  r.add({"cuda.conv1d.cutlass_sm90.fused", OpId::Conv1d, DeviceType::CUDA, 4, conv1d_cutlass_sm90_cuda,
         conv1d_cutlass_sm90_fused_supports});
#endif
  // The narrow kernel (Cout <= 4) with 16-byte staging: the same sum in the same order, so cuda.conv1d's bits
  // (conv_out 0.25 -> 0.14 ms on the H200, 16f4763). It takes only narrow outputs (conv_out), which the implicit-GEMM
  // providers decline; MUSIC3_DISABLE_PROVIDERS=cuda.conv1d.narrow_staged gives them back to cuda.conv1d.
  r.add({"cuda.conv1d.narrow_staged", OpId::Conv1d, DeviceType::CUDA, 5, conv1d_narrow_staged_cuda,
         conv1d_narrow_staged_supports});
#ifdef MUSIC3_WITH_CUDNN
  r.add({"cuda.conv1d.cudnn", OpId::Conv1d, DeviceType::CUDA, 0, conv1d_cudnn_cuda, conv1d_cudnn_supports});
#endif
  r.add({"cuda.conv_transpose1d", OpId::ConvTranspose1d, DeviceType::CUDA, 0, conv_transpose1d_cuda});
  // The same GEMM with a 16-byte staged col2im (the vocoder's up-blocks): the provider above's bits (the four
  // up-blocks 2.23 -> 1.48 ms on the H200, 16f4763); MUSIC3_DISABLE_PROVIDERS=cuda.conv_transpose1d.staged reaches it.
  r.add({"cuda.conv_transpose1d.staged", OpId::ConvTranspose1d, DeviceType::CUDA, 1, conv_transpose1d_staged_cuda,
         conv_transpose1d_staged_supports});
  r.add({"cuda.snake", OpId::Snake, DeviceType::CUDA, 0, snake_cuda});
  // The sine's half from a build-time table of the CPU provider's values (the CPU's bits, no sinf per element; the
  // window 11.8 -> 10.5 ms on the H200, 16f4763); MUSIC3_DISABLE_PROVIDERS=cuda.snake.table reaches cuda.snake.
  r.add({"cuda.snake.table", OpId::Snake, DeviceType::CUDA, 1, snake_table_cuda, snake_table_supports});
  r.add({"cuda.tanh", OpId::Tanh, DeviceType::CUDA, 0, tanh_cuda});
  r.add({"cuda.gqa_attention", OpId::GqaAttention, DeviceType::CUDA, 0, gqa_attention_cuda});
  // The LM's decode step (D 128, G 4) on kernels of that compile-time geometry: the provider above's arithmetic, so
  // its bits; MUSIC3_DISABLE_PROVIDERS=cuda.gqa_attention.fixed gives those calls back to it.
  r.add({"cuda.gqa_attention.fixed", OpId::GqaAttention, DeviceType::CUDA, 1, gqa_attention_fixed_cuda,
         gqa_attention_fixed_supports});
  r.add({"cuda.layer_norm", OpId::LayerNorm, DeviceType::CUDA, 0, layer_norm_cuda});
  r.add({"cuda.self_attention", OpId::SelfAttention, DeviceType::CUDA, 0, self_attention_cuda, self_attention_supports});
  // cuDNN's fused SDPA first where the build has it (issue 12: the DiT's attention); ours stays reachable with
  // MUSIC3_DISABLE_PROVIDERS=cuda.self_attention.cudnn and covers the shapes cuDNN's views decline.
#ifdef MUSIC3_WITH_CUDNN_FRONTEND
  r.add({"cuda.self_attention.cudnn", OpId::SelfAttention, DeviceType::CUDA, 1, self_attention_cudnn_cuda,
         self_attention_cudnn_supports});
#endif
  r.add({"cuda.place_rows", OpId::PlaceRows, DeviceType::CUDA, 0, place_rows_cuda});
  r.add({"cuda.guided_euler", OpId::GuidedEuler, DeviceType::CUDA, 0, guided_euler_cuda});
  r.add({"cuda.qk_norm_rope", OpId::QkNormRope, DeviceType::CUDA, 0, qk_norm_rope_cuda});
  // The AR loop's LM sampler on the device (K <= 16,896), and its feedback embedding: with both, the device-resident
  // frame (ar_device_loop.h; 7.06 against 7.42 ms per AR frame on the H200, 2026-12-04). MUSIC3_DISABLE_PROVIDERS=
  // cuda.lm_sample gives the LM device arm back its logits read-back and host sampling (gate twin
  // gate_lm_device_cuda_host_sampler).
  r.add({"cuda.lm_sample", OpId::LmSample, DeviceType::CUDA, 0, lm_sample_cuda, lm_sample_cuda_supports});
  r.add({"cuda.feedback_embedding", OpId::FeedbackEmbedding, DeviceType::CUDA, 0, feedback_embedding_cuda,
         feedback_embedding_cuda_supports});
}

}  // namespace music3::ops
