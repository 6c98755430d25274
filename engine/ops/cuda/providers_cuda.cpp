// Registers every CUDA provider (called once from registry() in CUDA builds).
#include "engine/ops/cuda/cuda_providers.h"
#include "engine/ops/registry.h"

namespace music3::ops {

void register_cuda_providers(OpRegistry& r) {
  r.add(OpId::RmsNorm, DeviceType::CUDA, rms_norm_cuda);
  r.add(OpId::MatmulBT, DeviceType::CUDA, matmul_bt_cuda);
  r.add(OpId::AttentionDecode, DeviceType::CUDA, attention_decode_cuda);
  r.add(OpId::SiluAndMul, DeviceType::CUDA, silu_and_mul_cuda);
  r.add(OpId::Add, DeviceType::CUDA, add_cuda);
  r.add(OpId::EmbeddingGather, DeviceType::CUDA, embedding_gather_cuda);
  r.add(OpId::KvAppend, DeviceType::CUDA, kv_append_cuda);
  r.add(OpId::CfgTopkSample, DeviceType::CUDA, cfg_topk_sample_cuda);
  r.add(OpId::ExpDraws, DeviceType::CUDA, exp_draws_cuda);
  r.add(OpId::AddRmsNorm, DeviceType::CUDA, add_rms_norm_cuda);
  r.add(OpId::KvAppendAttention, DeviceType::CUDA, kv_append_attention_cuda);
  r.add(OpId::Conv1d, DeviceType::CUDA, conv1d_cuda);
  r.add(OpId::ConvTranspose1d, DeviceType::CUDA, conv_transpose1d_cuda);
  r.add(OpId::Snake, DeviceType::CUDA, snake_cuda);
  r.add(OpId::Tanh, DeviceType::CUDA, tanh_cuda);
}

}  // namespace music3::ops
