// Registers every CPU provider (called once from registry()).
#include "engine/ops/cpu/cpu_providers.h"
#include "engine/ops/registry.h"

namespace music3::ops {

void register_cpu_providers(OpRegistry& r) {
  r.add(OpId::RmsNorm, DeviceType::CPU, rms_norm_cpu);
  r.add(OpId::MatmulBT, DeviceType::CPU, matmul_bt_cpu);
  r.add(OpId::AttentionDecode, DeviceType::CPU, attention_decode_cpu);
  r.add(OpId::SiluAndMul, DeviceType::CPU, silu_and_mul_cpu);
  r.add(OpId::Add, DeviceType::CPU, add_cpu);
  r.add(OpId::EmbeddingGather, DeviceType::CPU, embedding_gather_cpu);
  r.add(OpId::KvAppend, DeviceType::CPU, kv_append_cpu);
  r.add(OpId::CfgTopkSample, DeviceType::CPU, cfg_topk_sample_cpu);
  r.add(OpId::ExpDraws, DeviceType::CPU, exp_draws_cpu);
  r.add(OpId::AddRmsNorm, DeviceType::CPU, add_rms_norm_cpu);
  r.add(OpId::KvAppendAttention, DeviceType::CPU, kv_append_attention_cpu);
  r.add(OpId::Conv1d, DeviceType::CPU, conv1d_cpu);
  r.add(OpId::ConvTranspose1d, DeviceType::CPU, conv_transpose1d_cpu);
  r.add(OpId::Snake, DeviceType::CPU, snake_cpu);
  r.add(OpId::Tanh, DeviceType::CPU, tanh_cpu);
}

}  // namespace music3::ops
