#include "engine/ops/registry.h"

namespace music3::ops {

std::string op_name(OpId op) {
  switch (op) {
    case OpId::RmsNorm: return "rms_norm";
    case OpId::MatmulBT: return "matmul_bt";
    case OpId::AttentionDecode: return "attention_decode";
    case OpId::SiluAndMul: return "silu_and_mul";
    case OpId::Add: return "add";
    case OpId::EmbeddingGather: return "embedding_gather";
    case OpId::KvAppend: return "kv_append";
    case OpId::CfgTopkSample: return "cfg_topk_sample";
    case OpId::ExpDraws: return "exp_draws";
    case OpId::AddRmsNorm: return "add_rms_norm";
    case OpId::KvAppendAttention: return "kv_append_attention";
    case OpId::Conv1d: return "conv1d";
    case OpId::ConvTranspose1d: return "conv_transpose1d";
    case OpId::Snake: return "snake";
    case OpId::Tanh: return "tanh";
    case OpId::kCount: break;
  }
  return "op#" + std::to_string(static_cast<int>(op));
}

MissingProvider::MissingProvider(OpId op, DeviceType dev)
    : std::runtime_error("no provider for op '" + op_name(op) + "' on device '" + device_type_name(dev) + "'") {}

void OpRegistry::add(OpId op, DeviceType dev, ProviderFn fn) {
  auto d = static_cast<size_t>(dev);
  if (d >= kDevices) throw std::out_of_range("OpRegistry: device index out of range");
  table_[static_cast<size_t>(op)][d] = fn;
}

bool OpRegistry::has(OpId op, DeviceType dev) const {
  auto d = static_cast<size_t>(dev);
  return d < kDevices && table_[static_cast<size_t>(op)][d] != nullptr;
}

ProviderFn OpRegistry::lookup(OpId op, DeviceType dev) const {
  if (!has(op, dev)) throw MissingProvider(op, dev);
  return table_[static_cast<size_t>(op)][static_cast<size_t>(dev)];
}

const OpRegistry& registry() {
  static const OpRegistry r = [] {
    OpRegistry reg;
    register_cpu_providers(reg);
#ifdef MUSIC3_WITH_CUDA
    register_cuda_providers(reg);
#endif
    return reg;
  }();
  return r;
}

}  // namespace music3::ops
