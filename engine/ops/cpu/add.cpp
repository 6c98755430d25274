// add on the CPU: out[m, n] = bf16( f32(a[m|0, n]) + f32(b[m|0, n]) ), a one-row
// operand being broadcast over the rows. One row per parallel_for index; each
// element is read before it is written, so out may be the very view of a or b.
#include "engine/core/bf16.h"
#include "engine/core/parallel.h"
#include "engine/ops/cpu/cpu_providers.h"
#include "engine/ops/ops.h"

namespace music3::ops {

void add_cpu(const Queue& q, const void* args) {
  const auto& p = *static_cast<const AddArgs*>(args);
  const int64_t rows = p.out.shape[0], cols = p.out.shape[1];
  const int64_t a_stride = p.a.shape[0] == 1 ? 0 : cols, b_stride = p.b.shape[0] == 1 ? 0 : cols;
  const bf16* a = p.a.as<const bf16>();
  const bf16* b = p.b.as<const bf16>();
  bf16* out = p.out.as<bf16>();
  parallel_for(rows, q.threads, [&](int64_t begin, int64_t end) {
    for (int64_t m = begin; m < end; ++m) {
      const bf16* ar = a + m * a_stride;
      const bf16* br = b + m * b_stride;
      bf16* o = out + m * cols;
      for (int64_t n = 0; n < cols; ++n) o[n] = to_bf16(to_f32(ar[n]) + to_f32(br[n]));
    }
  });
}

}  // namespace music3::ops
