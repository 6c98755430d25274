#include "bench/support/uniform_bf16.h"

#include "engine/core/counter_rng.h"
#include "engine/core/parallel.h"

namespace music3::bench {

// Every index is its own counter, so the cores split the range and the bits stay the sequential ones.
void fill_uniform_bf16(bf16* out, size_t count, uint64_t seed, float scale) {
  parallel_for(static_cast<int64_t>(count), 0, [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      const double unit = static_cast<double>(counter_u64(seed, 0, uint64_t(i)) >> 11) * 0x1.0p-53;  // [0, 1)
      out[i] = to_bf16(static_cast<float>((2 * unit - 1) * scale));
    }
  });
}

std::vector<bf16> uniform_bf16(size_t count, uint64_t seed, float scale) {
  std::vector<bf16> out(count);
  fill_uniform_bf16(out.data(), count, seed, scale);
  return out;
}

}  // namespace music3::bench
