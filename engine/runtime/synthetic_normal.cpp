#include "engine/runtime/synthetic_normal.h"

#include "engine/core/parallel.h"

namespace music3::runtime {

void fill_normal(SyntheticNormal& n, bf16* out, int64_t count, float mean, float stddev) {
  parallel_for(count, 0, [&](int64_t begin, int64_t end) {
    SyntheticNormal chunk = n;
    chunk.skip(static_cast<uint64_t>(begin));
    for (int64_t i = begin; i < end; ++i) out[i] = to_bf16(mean + stddev * chunk.next());
  });
  n.skip(static_cast<uint64_t>(count));
}

}  // namespace music3::runtime
