#include "engine/ops/registry.h"

#include <algorithm>
#include <cstdlib>
#include <sstream>

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
    case OpId::GqaAttention: return "gqa_attention";
    case OpId::LayerNorm: return "layer_norm";
    case OpId::SelfAttention: return "self_attention";
    case OpId::PlaceRows: return "place_rows";
    case OpId::QkNormRope: return "qk_norm_rope";
    case OpId::GuidedEuler: return "guided_euler";
    case OpId::LmSample: return "lm_sample";
    case OpId::FeedbackEmbedding: return "feedback_embedding";
    case OpId::MatmulBtSilu: return "matmul_bt_silu";
    case OpId::AddRmsNormMatmulBt: return "add_rms_norm_matmul_bt";
    case OpId::kCount: break;
  }
  return "op#" + std::to_string(static_cast<int>(op));
}

MissingProvider::MissingProvider(OpId op, DeviceType dev, const std::string& detail)
    : std::runtime_error("no provider for op '" + op_name(op) + "' on device '" + device_type_name(dev) + "'" +
                         (detail.empty() ? "" : ": " + detail)) {}

void OpRegistry::add(Provider p) {
  const auto d = static_cast<size_t>(p.device);
  if (d >= kDevices || p.op >= OpId::kCount) throw DuplicateProvider("provider '" + p.name + "': op or device out of range");
  if (p.name.empty() || !p.run) throw DuplicateProvider("provider for op '" + op_name(p.op) + "': no name or no function");
  for (const Entry& e : entries_) {
    if (e.p.name == p.name) throw DuplicateProvider("provider '" + p.name + "' is registered twice");
    if (e.p.op == p.op && e.p.device == p.device && e.p.priority == p.priority)
      throw DuplicateProvider("providers '" + e.p.name + "' and '" + p.name + "' share op '" + op_name(p.op) +
                              "' on device '" + device_type_name(p.device) + "' at priority " +
                              std::to_string(p.priority));
  }
  auto& slot = table_[static_cast<size_t>(p.op)][d];
  entries_.emplace_back(std::move(p));
  slot.push_back(entries_.size() - 1);
  std::stable_sort(slot.begin(), slot.end(),
                   [&](size_t a, size_t b) { return entries_[a].p.priority > entries_[b].p.priority; });
}

const OpRegistry::Entry& OpRegistry::entry_named(const std::string& name, const char* verb) const {
  std::string known;
  for (const Entry& e : entries_) {
    if (e.p.name == name) return e;
    known += (known.empty() ? "" : ", ") + e.p.name;
  }
  throw std::invalid_argument(std::string("cannot ") + verb + " provider '" + name + "': no such provider (known: " +
                              known + ")");
}

void OpRegistry::set_enabled(const std::string& name, bool enabled) const {
  entry_named(name, enabled ? "enable" : "disable").enabled = enabled;
}

bool OpRegistry::enabled(const std::string& name) const {
  for (const Entry& e : entries_)
    if (e.p.name == name) return e.enabled;
  return false;
}

bool OpRegistry::has(OpId op, DeviceType dev) const {
  const auto d = static_cast<size_t>(dev);
  if (d >= kDevices || op >= OpId::kCount) return false;
  for (size_t i : table_[static_cast<size_t>(op)][d])
    if (entries_[i].enabled) return true;
  return false;
}

const Provider* OpRegistry::find(OpId op, DeviceType dev, const void* args) const {
  const auto d = static_cast<size_t>(dev);
  if (d >= kDevices || op >= OpId::kCount) return nullptr;
  for (size_t i : table_[static_cast<size_t>(op)][d])
    if (entries_[i].enabled && (!entries_[i].p.supports || entries_[i].p.supports(args))) return &entries_[i].p;
  return nullptr;
}

const Provider& OpRegistry::select(OpId op, DeviceType dev, const void* args) const {
  const auto d = static_cast<size_t>(dev);
  if (d >= kDevices || op >= OpId::kCount) throw MissingProvider(op, dev);
  const auto& slot = table_[static_cast<size_t>(op)][d];
  std::string passed;
  for (size_t i : slot) {
    const Entry& e = entries_[i];
    if (!e.enabled) {
      passed += " " + e.p.name + " (disabled)";
      continue;
    }
    if (e.p.supports && !e.p.supports(args)) {
      passed += " " + e.p.name + " (does not support this call)";
      continue;
    }
    e.calls.fetch_add(1, std::memory_order_relaxed);
    return e.p;
  }
  throw MissingProvider(op, dev, passed.empty() ? "" : "passed over" + passed);
}

std::vector<ProviderUse> OpRegistry::usage() const {
  std::vector<ProviderUse> out;
  for (const Entry& e : entries_)
    out.push_back({e.p.name, e.p.op, e.p.device, e.enabled, e.calls.load(std::memory_order_relaxed)});
  return out;
}

void OpRegistry::reset_usage() const {
  for (const Entry& e : entries_) e.calls.store(0, std::memory_order_relaxed);
}

namespace {
// Applies the comma-separated provider names of environment variable `var`: enables or disables each.
void apply_env(OpRegistry& r, const char* var, bool enable) {
  const char* v = std::getenv(var);
  if (!v) return;
  std::stringstream names(v);
  std::string name;
  while (std::getline(names, name, ','))
    if (!name.empty()) r.set_enabled(name, enable);
}
}  // namespace

const OpRegistry& registry() {
  static const OpRegistry r = [] {
    OpRegistry reg;
    register_cpu_providers(reg);
#ifdef MUSIC3_WITH_CUDA
    register_cuda_providers(reg);
#endif
    apply_env(reg, "MUSIC3_ENABLE_PROVIDERS", true);
    apply_env(reg, "MUSIC3_DISABLE_PROVIDERS", false);
    return reg;
  }();
  return r;
}

std::span<const OpId> composed_parts(OpId op) {
  static constexpr OpId kMatmulBtSilu[] = {OpId::MatmulBT, OpId::SiluAndMul};
  static constexpr OpId kAddRmsNormMatmulBt[] = {OpId::AddRmsNorm, OpId::MatmulBT, OpId::MatmulBtSilu};
  switch (op) {
    case OpId::MatmulBtSilu: return kMatmulBtSilu;
    case OpId::AddRmsNormMatmulBt: return kAddRmsNormMatmulBt;
    default: return {};
  }
}

std::set<OpId> primitive_ops_run(const OpRegistry& r, DeviceType device) {
  std::set<OpId> ran;
  std::vector<OpId> pending;
  for (const ProviderUse& u : r.usage())
    if (u.device == device && u.calls > 0) pending.push_back(u.op);
  while (!pending.empty()) {
    const OpId op = pending.back();
    pending.pop_back();
    const auto parts = composed_parts(op);
    if (parts.empty())
      ran.insert(op);
    else
      pending.insert(pending.end(), parts.begin(), parts.end());
  }
  return ran;
}

}  // namespace music3::ops
