// The engine's one random generator: Philox4x32-10, counter-based, so every draw is a
// pure function of (key, counter) with no stream state to carry, and the CPU and CUDA
// providers draw the same bits. The sampler's Exp(1) draws (ops/sampler_math.h), the
// synthetic weights and the benches' data all come from it.
// Contract: philox4x32_10(ctr, k0, k1) is the published Philox4x32 with 10 rounds;
// counter_u64(seed, stream, index) is 64 bits of the block keyed by seed at counter
// (index, stream). Pure functions, host and device: thread-safe.
#pragma once
#include <cstdint>

#include "engine/core/bf16.h"

namespace music3 {

struct U32x4 {
  uint32_t v[4];
};

MUSIC3_HD U32x4 philox4x32_10(U32x4 ctr, uint32_t k0, uint32_t k1) {
  constexpr uint32_t kM0 = 0xD2511F53u, kM1 = 0xCD9E8D57u, kW0 = 0x9E3779B9u, kW1 = 0xBB67AE85u;
  for (int r = 0; r < 10; ++r) {
    uint64_t p0 = static_cast<uint64_t>(kM0) * ctr.v[0];
    uint64_t p1 = static_cast<uint64_t>(kM1) * ctr.v[2];
    U32x4 n;
    n.v[0] = static_cast<uint32_t>(p1 >> 32) ^ ctr.v[1] ^ k0;
    n.v[1] = static_cast<uint32_t>(p1);
    n.v[2] = static_cast<uint32_t>(p0 >> 32) ^ ctr.v[3] ^ k1;
    n.v[3] = static_cast<uint32_t>(p0);
    ctr = n;
    k0 += kW0;
    k1 += kW1;
  }
  return ctr;
}

MUSIC3_HD uint64_t counter_u64(uint64_t seed, uint64_t stream, uint64_t index) {
  const U32x4 r = philox4x32_10({{static_cast<uint32_t>(index), static_cast<uint32_t>(index >> 32),
                                  static_cast<uint32_t>(stream), static_cast<uint32_t>(stream >> 32)}},
                                 static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32));
  return (static_cast<uint64_t>(r.v[0]) << 32) | r.v[1];
}

}  // namespace music3
