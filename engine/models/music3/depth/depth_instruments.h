// Instruments a real depth run emits; gates and reports read them.
// Contract: the runtime's arm counters (runtime/arm.h; aux_dtypes holds the sampler's
// buffers) plus nonfinite_logits, the count of non-finite head logits seen.
// Thread-safety: written by the one arm that owns it.
#pragma once
#include <cstdint>

#include "engine/runtime/arm.h"

namespace music3::depth {

struct DepthInstruments : runtime::ArmInstruments {
  uint64_t nonfinite_logits = 0;
};

}  // namespace music3::depth
