// embedding_gather on the CPU: out[m, :] = table[ids[m] + offset, :].
// Every id is checked before anything is written: a row index outside the table
// throws std::out_of_range naming the position, the id, the offset and the table.
#include <cstring>
#include <stdexcept>
#include <string>

#include "engine/core/bf16.h"
#include "engine/core/parallel.h"
#include "engine/ops/cpu/cpu_providers.h"
#include "engine/ops/ops.h"

namespace music3::ops {

void embedding_gather_cpu(const Queue& q, const void* args) {
  const auto& p = *static_cast<const EmbeddingGatherArgs*>(args);
  const int64_t rows = p.ids.shape[0], cols = p.table.shape[1], table_rows = p.table.shape[0];
  const int32_t* ids = p.ids.as<const int32_t>();
  for (int64_t m = 0; m < rows; ++m) {
    const int64_t row = ids[m] + p.offset;
    if (row < 0 || row >= table_rows)
      throw std::out_of_range("embedding_gather: ids[" + std::to_string(m) + "] = " + std::to_string(ids[m]) +
                              " + offset " + std::to_string(p.offset) + " is outside 'table' " +
                              p.table.describe());
  }
  const bf16* table = p.table.as<const bf16>();
  bf16* out = p.out.as<bf16>();
  parallel_for(rows, q.threads, [&](int64_t begin, int64_t end) {
    for (int64_t m = begin; m < end; ++m)
      std::memcpy(out + m * cols, table + (ids[m] + p.offset) * cols, static_cast<size_t>(cols) * sizeof(bf16));
  });
}

}  // namespace music3::ops
