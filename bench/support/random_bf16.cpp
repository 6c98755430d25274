#include "bench/support/random_bf16.h"

#include "bench/stats/ab_stats.h"

namespace music3::bench {

std::vector<bf16> random_bf16(size_t count, uint64_t seed, float scale) {
  SplitMix64 rng(seed);
  std::vector<bf16> out(count);
  for (auto& v : out) {
    const double unit = static_cast<double>(rng.next() >> 11) * 0x1.0p-53;  // [0, 1)
    v = to_bf16(static_cast<float>((2 * unit - 1) * scale));
  }
  return out;
}

}  // namespace music3::bench
