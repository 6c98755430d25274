// The op registry: (op, device type) -> provider.
// Contract: lookup() returns the registered provider or throws MissingProvider,
// whose message names the op and the device ("no provider for op 'rms_norm' on
// device 'rocm'"). Registration happens once, in providers_cpu.cpp and (CUDA
// builds) providers_cuda.cpp, called from registry() on first use, so static
// libraries cannot drop a provider by dead-stripping its translation unit.
// Providers receive a pointer to the op's argument struct (ops.h).
#pragma once
#include <array>
#include <stdexcept>
#include <string>

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
  kCount
};
std::string op_name(OpId op);

using ProviderFn = void (*)(const Queue& q, const void* args);

class MissingProvider : public std::runtime_error {
 public:
  MissingProvider(OpId op, DeviceType dev);
};

class OpRegistry {
 public:
  void add(OpId op, DeviceType dev, ProviderFn fn);
  ProviderFn lookup(OpId op, DeviceType dev) const;
  bool has(OpId op, DeviceType dev) const;

 private:
  static constexpr size_t kDevices = 8;
  std::array<std::array<ProviderFn, kDevices>, static_cast<size_t>(OpId::kCount)> table_{};
};

const OpRegistry& registry();

void register_cpu_providers(OpRegistry& r);
#ifdef MUSIC3_WITH_CUDA
void register_cuda_providers(OpRegistry& r);
#endif

}  // namespace music3::ops
