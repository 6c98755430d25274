// cuda.snake.table's per-element body (snake_table.cu), host-and-device so that a CPU gate
// (gates/ops/snake_table_host_test.cpp) runs it: Snake with the sine's half looked up instead of computed.
// The value depends on bf16(alpha x) only through bf16(bf16(sin(bf16(alpha x)))^2), an even function of
// u = bf16(alpha x) (sin is odd, bf16 rounding is symmetric; snake_table_gen checks it for every pattern), so the table
// holds the square per magnitude pattern: `table[u & 0x7FFF]` (32,768 entries, 64 KiB) is snake_sin_square_bits(u). Then
//   out = bf16(x + bf16(inverse * table[magnitude bits of bf16(alpha x)])), inverse = bf16(1 / bf16(alpha + 1e-9)),
// the CPU provider's six rounding points in its order, so the CPU provider's bits wherever the table is its sine's.
#pragma once
#include <cstdint>

#include "engine/core/bf16.h"

namespace music3::ops::snake_table {

constexpr int kEntries = 32768;  // one per bf16 magnitude pattern (the sign bit dropped)

// The entry of the bf16 pattern `bits`.
MUSIC3_HD constexpr uint16_t entry_of(uint16_t bits) { return bits & 0x7FFF; }

struct Channel {
  float alpha, inverse;
};

MUSIC3_HD Channel channel_for(bf16 alpha) {
  const float a = to_f32(alpha);
  return {a, round_bf16(1.0f / round_bf16(a + 1e-9f))};
}

// The Snake of x by the table: its three roundings are to_bf16 (the contract, engine/core/bf16.h), host and device.
MUSIC3_HD bf16 snake_by_table(bf16 x, const Channel& c, const uint16_t* table) {
  const float v = to_f32(x);
  const float square = to_f32(bf16{table[entry_of(to_bf16(c.alpha * v).bits)]});
  return to_bf16(v + round_bf16(c.inverse * square));
}

}  // namespace music3::ops::snake_table
