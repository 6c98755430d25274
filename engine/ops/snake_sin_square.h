// The sin half of upstream's Snake at its bf16 rounding points, as the CPU computes it: for the rounded argument
// u = bf16(alpha x), bf16(bf16(sin(u))^2), with the C library's single-precision sin. One definition for the CPU
// snake provider and the table of cuda.snake.table (snake_table_gen writes that table at build time from this very
// function, so the table provider gives the CPU provider's bits on the machine that built it). The vocoder's host
// arm keeps its own copy of the formula: it mirrors upstream independently of the providers it checks.
#pragma once
#include <cmath>
#include <cstdint>

#include "engine/core/bf16.h"

namespace music3::ops {

inline float snake_sin_square(float u) {
  const float s = round_bf16(std::sin(u));
  return round_bf16(s * s);
}

// The table entry for the bf16 bit pattern u: the bits of bf16(snake_sin_square(u)) (a NaN u gives 0x7FC0).
inline uint16_t snake_sin_square_bits(uint16_t u) { return to_bf16(snake_sin_square(to_f32(bf16{u}))).bits; }

}  // namespace music3::ops
