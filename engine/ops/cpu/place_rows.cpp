// place_rows on the CPU: row i of src copied to row row0 + i * row_step of out at column col0.
#include <cstring>

#include "engine/core/bf16.h"
#include "engine/ops/cpu/cpu_providers.h"
#include "engine/ops/transformer_ops.h"

namespace music3::ops {

void place_rows_cpu(const Queue&, const void* args) {
  const auto& p = *static_cast<const PlaceRowsArgs*>(args);
  const int64_t rows = p.src.shape[0], width = p.src.shape[1], out_width = p.out.shape[1];
  const bf16* src = p.src.as<const bf16>();
  bf16* out = p.out.as<bf16>();
  for (int64_t i = 0; i < rows; ++i)
    std::memcpy(out + (p.row0 + i * p.row_step) * out_width + p.col0, src + i * width,
                static_cast<size_t>(width) * sizeof(bf16));
}

}  // namespace music3::ops
