// Instruments a real depth run emits; gates and reports read them.
// Contract: forward counters move by one per forward call of the arm that ran it;
// resident_dtypes is the OR of dtype_bit() over every buffer the device forward
// made resident (weights, K/V cache, activations); sampler_dtypes the same for
// the sampler's buffers; nonfinite_logits counts non-finite head logits.
#pragma once
#include <cstddef>
#include <cstdint>

namespace music3::depth {

struct DepthInstruments {
  uint64_t host_forwards = 0;
  uint64_t device_forwards = 0;
  uint64_t frames = 0;
  uint64_t staging_count = 0;  // times weights were staged onto a device queue
  double staging_ms = 0;       // the staging span, wall clock
  size_t staged_bytes = 0;
  uint32_t resident_dtypes = 0;
  uint32_t sampler_dtypes = 0;
  uint64_t nonfinite_logits = 0;
  size_t pool_backend_allocs = 0;  // device pool: backend allocations so far
};

}  // namespace music3::depth
