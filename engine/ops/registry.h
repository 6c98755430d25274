// The provider table: named providers per (op, device type), each with a priority
// and a supports(args) test; the entry points run the highest-priority enabled
// provider that supports the call, and the table records which provider ran and
// how often.
// Contract:
//  - add() refuses (DuplicateProvider) a name already registered, a provider with
//    no name or function, and a second provider of equal priority for the same
//    (op, device), so the choice is never left to registration order;
//  - select() returns the chosen provider or throws MissingProvider, whose message
//    names the op and the device ("no provider for op 'rms_norm' on device 'rocm'")
//    and, when providers exist but none is enabled and supports the call, says so;
//  - an opt_in provider starts disabled; registry() enables the comma-separated names in
//    MUSIC3_ENABLE_PROVIDERS once, on first use (then applies MUSIC3_DISABLE_PROVIDERS);
//  - set_enabled(name, false) takes a provider out of selection (throws naming the known
//    providers for an unknown name); registry() applies the comma-separated names
//    in MUSIC3_DISABLE_PROVIDERS once, on first use, so one binary can A/B two
//    providers of an op; set_enabled works at any time, and set_enabled(name, true) undoes it, for A/B runs in one
//    process (bench-acoustic): a call already past select() keeps its provider, and a body captured into a device
//    graph keeps the providers it was captured with;
//  - usage() lists every provider with its call count (a call captured into a
//    device graph counts once, at capture); reset_usage() zeroes the counts.
// Registration happens once, in providers_cpu.cpp and (CUDA builds)
// providers_cuda.cpp, called from registry() on first use, so static libraries
// cannot drop a provider by dead-stripping its translation unit. Providers receive a
// pointer to the op's argument struct (ops.h), already validated.
// Thread-safety: registration before use from one thread; select(),
// has(), set_enabled(), usage() and reset_usage() are thread-safe.
#pragma once
#include <array>
#include <atomic>
#include <cstdint>
#include <deque>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/core/device_type.h"
#include "engine/core/queue.h"

namespace music3::ops {

enum class OpId : uint8_t {
  RmsNorm,
  MatmulBT,
  AttentionDecode,
  SiluAndMul,
  Add,
  EmbeddingGather,
  KvAppend,
  CfgTopkSample,
  ExpDraws,
  AddRmsNorm,
  KvAppendAttention,
  Conv1d,
  ConvTranspose1d,
  Snake,
  Tanh,
  GqaAttention,
  LayerNorm,
  SelfAttention,
  PlaceRows,
  QkNormRope,
  GuidedEuler,
  LmSample,
  FeedbackEmbedding,
  MatmulBtSilu,
  AddRmsNormMatmulBt,
  kCount
};
std::string op_name(OpId op);

using ProviderFn = void (*)(const Queue& q, const void* args);
using SupportsFn = bool (*)(const void* args);  // null: every validated call

struct Provider {
  std::string name;  // "<device>.<op>" or "<device>.<op>.<variant>"
  OpId op = OpId::kCount;
  DeviceType device = DeviceType::CPU;
  int priority = 0;  // higher is tried first
  ProviderFn run = nullptr;
  SupportsFn supports = nullptr;
  // Off until asked for (MUSIC3_ENABLE_PROVIDERS, --enable-providers, set_enabled): a provider whose results may
  // differ between processes (a timed algorithm choice), so the default stays reproducible run to run; or a new
  // kernel whose gates have not yet run on its device, so the default path stays the one verified there.
  bool opt_in = false;
};

struct ProviderUse {
  std::string name;
  OpId op;
  DeviceType device;
  bool enabled;
  uint64_t calls;
};

class MissingProvider : public std::runtime_error {
 public:
  MissingProvider(OpId op, DeviceType dev, const std::string& detail = "");
};

class DuplicateProvider : public std::invalid_argument {
 public:
  using std::invalid_argument::invalid_argument;
};

class OpRegistry {
 public:
  void add(Provider p);
  void set_enabled(const std::string& name, bool enabled) const;  // throws naming the known providers for an unknown name
  const Provider& select(OpId op, DeviceType dev, const void* args) const;  // counts the call
  // What select() would choose for `args`, without counting; nullptr when no enabled provider supports it.
  // supports() of that op's providers sees `args` as given (a probe may leave tensors empty when they read none).
  const Provider* find(OpId op, DeviceType dev, const void* args) const;
  bool has(OpId op, DeviceType dev) const;  // an enabled provider exists
  bool enabled(const std::string& name) const;  // a provider of that name is registered and enabled
  std::vector<ProviderUse> usage() const;
  void reset_usage() const;

 private:
  struct Entry {
    Provider p;
    mutable std::atomic<bool> enabled{true};
    mutable std::atomic<uint64_t> calls{0};
    explicit Entry(Provider pr) : p(std::move(pr)), enabled(!p.opt_in) {}
  };
  const Entry& entry_named(const std::string& name, const char* verb) const;
  static constexpr size_t kDevices = 8;
  std::deque<Entry> entries_;  // stable addresses
  // Per (op, device): indices into entries_, highest priority first.
  std::array<std::array<std::vector<size_t>, kDevices>, static_cast<size_t>(OpId::kCount)> table_{};
};

const OpRegistry& registry();

// The ops a fused op's entry point issues where no enabled provider takes the call (ops.h: matmul_bt_silu;
// add_rms_norm_matmul_bt, which issues matmul_bt or, in its SiLU form, matmul_bt_silu); empty for every other op,
// which each device must provide.
std::span<const OpId> composed_parts(OpId op);

// The ops that ran on `device` since the last reset_usage(), each fused op's calls counted as the ops its entry
// would issue (composed_parts, recursively): a device arm's declared op list (its ops()) must equal this set, with
// or without the fusing providers.
std::set<OpId> primitive_ops_run(const OpRegistry& r, DeviceType device);

void register_cpu_providers(OpRegistry& r);
#ifdef MUSIC3_WITH_CUDA
void register_cuda_providers(OpRegistry& r);
#endif

}  // namespace music3::ops
