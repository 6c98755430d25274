// The arm seam every component shares: which arm runs (host reference or device),
// what the caller asked for, the one refusal type, the outcome of a selection, and
// the counters every arm keeps.
// Contract: a component has a host arm (the CPU reference, mirroring the upstream
// rounding points) and a device arm (written against the op entry points, running on
// any queue whose device has providers for every op it issues). ArmRefused's message
// names the component and the device ("<component> device arm refused on device
// '<name>': <why>"). Plain data and pure functions: thread-safe; an ArmInstruments
// is written by the one arm that owns it.
#pragma once
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>

#include "engine/core/device_type.h"

namespace music3::runtime {

enum class ArmKind { Host, Device };
std::string arm_name(ArmKind k);  // "host" | "device"

enum class ArmRequest { Auto, Host, Device };
ArmRequest arm_request_from_name(const std::string& name);  // "auto" | "host" | "device"

class ArmRefused : public std::runtime_error {
 public:
  ArmRefused(const std::string& component, DeviceType dev, const std::string& why);
  DeviceType device;
};

struct SelectionOutcome {
  ArmKind arm = ArmKind::Host;
  bool staged = false;        // weights were copied to the queue's device
  bool release_host = false;  // the caller may drop its host weights
  std::string device;
};

// Counters a real run emits; gates and reports read them.
// Forward counters move by one per forward call of the arm that ran it;
// resident_dtypes is the OR of dtype_bit() over every buffer the device forward made
// resident (weights, caches, activations); aux_dtypes the same for the buffers outside
// the forward's contract (a sampler's f32/i32 buffers).
struct ArmInstruments {
  uint64_t host_forwards = 0;
  uint64_t device_forwards = 0;
  uint64_t frames = 0;
  uint64_t staging_count = 0;  // times weights were staged onto a device queue
  double staging_ms = 0;       // the staging span, wall clock
  size_t staged_bytes = 0;
  uint32_t resident_dtypes = 0;
  uint32_t aux_dtypes = 0;
  size_t pool_backend_allocs = 0;  // the device pool's backend allocations so far
};

}  // namespace music3::runtime
