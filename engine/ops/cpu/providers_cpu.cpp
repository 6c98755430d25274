// Registers every CPU provider (called once from registry()).
#include "engine/ops/cpu/cpu_providers.h"
#include "engine/ops/registry.h"

namespace music3::ops {

void register_cpu_providers(OpRegistry& r) {
  r.add({"cpu.rms_norm", OpId::RmsNorm, DeviceType::CPU, 0, rms_norm_cpu});
  r.add({"cpu.matmul_bt", OpId::MatmulBT, DeviceType::CPU, 0, matmul_bt_cpu});
  r.add({"cpu.attention_decode", OpId::AttentionDecode, DeviceType::CPU, 0, attention_decode_cpu});
  r.add({"cpu.silu_and_mul", OpId::SiluAndMul, DeviceType::CPU, 0, silu_and_mul_cpu});
  r.add({"cpu.add", OpId::Add, DeviceType::CPU, 0, add_cpu});
  r.add({"cpu.embedding_gather", OpId::EmbeddingGather, DeviceType::CPU, 0, embedding_gather_cpu});
  r.add({"cpu.kv_append", OpId::KvAppend, DeviceType::CPU, 0, kv_append_cpu});
  r.add({"cpu.cfg_topk_sample", OpId::CfgTopkSample, DeviceType::CPU, 0, cfg_topk_sample_cpu});
  r.add({"cpu.exp_draws", OpId::ExpDraws, DeviceType::CPU, 0, exp_draws_cpu});
  r.add({"cpu.add_rms_norm", OpId::AddRmsNorm, DeviceType::CPU, 0, add_rms_norm_cpu});
  r.add({"cpu.kv_append_attention", OpId::KvAppendAttention, DeviceType::CPU, 0, kv_append_attention_cpu});
  r.add({"cpu.conv1d", OpId::Conv1d, DeviceType::CPU, 0, conv1d_cpu, conv1d_cpu_supports});
  r.add({"cpu.conv_transpose1d", OpId::ConvTranspose1d, DeviceType::CPU, 0, conv_transpose1d_cpu});
  r.add({"cpu.snake", OpId::Snake, DeviceType::CPU, 0, snake_cpu});
  r.add({"cpu.tanh", OpId::Tanh, DeviceType::CPU, 0, tanh_cpu});
  r.add({"cpu.gqa_attention", OpId::GqaAttention, DeviceType::CPU, 0, gqa_attention_cpu});
  r.add({"cpu.layer_norm", OpId::LayerNorm, DeviceType::CPU, 0, layer_norm_cpu});
  r.add({"cpu.self_attention", OpId::SelfAttention, DeviceType::CPU, 0, self_attention_cpu});
  r.add({"cpu.place_rows", OpId::PlaceRows, DeviceType::CPU, 0, place_rows_cpu});
  r.add({"cpu.qk_norm_rope", OpId::QkNormRope, DeviceType::CPU, 0, qk_norm_rope_cpu});
  r.add({"cpu.guided_euler", OpId::GuidedEuler, DeviceType::CPU, 0, guided_euler_cpu});
  r.add({"cpu.lm_sample", OpId::LmSample, DeviceType::CPU, 0, lm_sample_cpu});
  r.add({"cpu.feedback_embedding", OpId::FeedbackEmbedding, DeviceType::CPU, 0, feedback_embedding_cpu});
}

}  // namespace music3::ops
