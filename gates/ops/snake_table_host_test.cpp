// op_snake_table_host: cuda.snake.table on the CPU, without a GPU.
//  - The table the build wrote (snake_sin_square_table.inc, compiled into the kernel), looked up as the kernel does (at
//    the pattern's magnitude), equals snake_sin_square_bits on this machine for every one of the 65,536 bf16 patterns.
//  - The kernel's per-element body (engine/ops/cuda/snake_table.cuh) over that table gives the CPU snake provider's
//    bits for every bf16 input pattern (NaN and the infinities included) under alphas from 0.05 to 20, a negative one
//    and a zero (whose inverse is bf16(1 / 1e-9)).
#include <gtest/gtest.h>

#include <cstdio>
#include <vector>

#include "engine/core/device_array.h"
#include "engine/ops/cuda/snake_table.cuh"
#include "engine/ops/snake_sin_square.h"
#include "engine/ops/vocoder_ops.h"

namespace music3::optest {
namespace {

const uint16_t kBuiltTable[ops::snake_table::kEntries] = {
#include "snake_sin_square_table.inc"
};

TEST(SnakeTable, BuiltTableIsThisMachinesSine) {
  size_t differ = 0;
  for (uint32_t u = 0; u < 65536; ++u) {
    const auto bits = static_cast<uint16_t>(u);
    differ += kBuiltTable[ops::snake_table::entry_of(bits)] != ops::snake_sin_square_bits(bits);
  }
  std::printf("snake table: %zu of 65536 patterns' entries differ from snake_sin_square_bits\n", differ);
  EXPECT_EQ(differ, 0u);
}

TEST(SnakeTable, BodyGivesTheCpuProviderBits) {
  const std::vector<float> alphas = {0.05f, 0.3f, 1.0f, 1.7f, 3.0f, 9.0f, 20.0f, -1.3f, 0.0f};
  const int64_t n = 65536;  // every bf16 pattern
  std::vector<bf16> x(static_cast<size_t>(n));
  for (int64_t u = 0; u < n; ++u) x[size_t(u)] = bf16{static_cast<uint16_t>(u)};
  const Queue q = cpu_queue();
  for (const float a : alphas) {
    const bf16 alpha = to_bf16(a);
    DeviceArray xb(q, DType::BF16, {1, 1, n}), ab(q, DType::BF16, {1}), ob(q, DType::BF16, {1, 1, n});
    xb.upload(x), ab.upload(std::vector<bf16>{alpha}), ob.poison();
    ops::snake(q, xb, ab, ob);  // the CPU provider
    const auto want = ob.download<bf16>();
    const ops::snake_table::Channel c = ops::snake_table::channel_for(alpha);
    size_t differ = 0;
    for (int64_t u = 0; u < n; ++u)
      differ += ops::snake_table::snake_by_table(x[size_t(u)], c, kBuiltTable).bits != want[size_t(u)].bits;
    std::printf("snake table: alpha %g: %zu of %lld inputs differ from the CPU provider\n", double(to_f32(alpha)),
                differ, static_cast<long long>(n));
    EXPECT_EQ(differ, 0u) << "alpha " << to_f32(alpha);
  }
}

}  // namespace
}  // namespace music3::optest
