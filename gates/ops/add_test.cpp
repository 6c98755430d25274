// add gate: exact. out = bf16(f32(a) + f32(b)), the reference computing the f32 sum
// as the exact f64 sum rounded to f32 (which is what IEEE f32 addition is), over
// mixed magnitudes (sums that round in f32 before bf16), non-finite values, row
// broadcast on either or both sides and in place on either side.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "engine/ops/ops.h"
#include "gates/ops/support/numerics.h"
#include "gates/ops/support/provider_under_test.h"
#include "engine/core/device_array.h"

namespace music3::optest {
namespace {

std::vector<bf16> reference(const std::vector<bf16>& a, int64_t a_rows, const std::vector<bf16>& b, int64_t b_rows,
                            int64_t rows, int64_t cols) {
  std::vector<bf16> out(static_cast<size_t>(rows * cols));
  for (int64_t m = 0; m < rows; ++m)
    for (int64_t n = 0; n < cols; ++n) {
      const double x = to_f32(a[(a_rows == 1 ? 0 : m) * cols + n]), y = to_f32(b[(b_rows == 1 ? 0 : m) * cols + n]);
      out[m * cols + n] = to_bf16(static_cast<float>(x + y));
    }
  return out;
}

// Magnitudes spread over 2^-20 .. 2^20 so that many sums need more than 24 bits.
std::vector<bf16> operand(int64_t n, uint64_t seed) {
  auto v = normal_bf16(static_cast<size_t>(n), seed, 1.0);
  for (size_t i = 0; i < v.size(); ++i) v[i] = to_bf16(to_f32(v[i]) * std::ldexp(1.0f, static_cast<int>(i % 41) - 20));
  return v;
}

std::vector<bf16> run(const Queue& q, const std::vector<bf16>& a, int64_t a_rows, const std::vector<bf16>& b,
                      int64_t b_rows, int64_t rows, int64_t cols) {
  DeviceArray ab(q, DType::BF16, {a_rows, cols}), bb(q, DType::BF16, {b_rows, cols});
  DeviceArray ob(q, DType::BF16, {rows, cols});
  ab.upload(a);
  bb.upload(b);
  ob.poison();
  ops::add(q, ab, bb, ob);
  return ob.download<bf16>();
}

TEST(Add, ExactOnFullAndBroadcastOperands) {
  const int64_t rows = 6, cols = 4103;
  auto a = operand(rows * cols, 1), b = operand(rows * cols, 2);
  a[0] = to_bf16(std::numeric_limits<float>::infinity());
  b[0] = to_bf16(-std::numeric_limits<float>::infinity());  // inf + -inf = NaN
  a[1] = bf16{0x7FC0};                                      // NaN propagates
  b[2] = to_bf16(std::numeric_limits<float>::infinity());
  const auto a_row = operand(cols, 3), b_row = operand(cols, 4);
  const Queue q = provider_queue(0);
  EXPECT_EQ(bits(run(q, a, rows, b, rows, rows, cols)), bits(reference(a, rows, b, rows, rows, cols)));
  EXPECT_EQ(bits(run(q, a, rows, b_row, 1, rows, cols)), bits(reference(a, rows, b_row, 1, rows, cols)));
  EXPECT_EQ(bits(run(q, a_row, 1, b, rows, rows, cols)), bits(reference(a_row, 1, b, rows, rows, cols)));
  EXPECT_EQ(bits(run(q, a_row, 1, b_row, 1, 1, cols)), bits(reference(a_row, 1, b_row, 1, 1, cols)));
  EXPECT_EQ(bits(run(q, a_row, 1, b_row, 1, rows, cols)), bits(reference(a_row, 1, b_row, 1, rows, cols)));
  // A multiple of 8 elements (CUDA: the 8-wide form with no tail; 4103 above leaves a tail of 2).
  const auto c = operand(5 * 2048, 8), d = operand(5 * 2048, 9);
  EXPECT_EQ(bits(run(q, c, 5, d, 5, 5, 2048)), bits(reference(c, 5, d, 5, 5, 2048)));
}

TEST(Add, InPlaceOnEitherSide) {
  const int64_t rows = 3, cols = 999;
  const auto a = operand(rows * cols, 5), b = operand(rows * cols, 6), b_row = operand(cols, 7);
  const Queue q = provider_queue(0);
  DeviceArray ab(q, DType::BF16, {rows, cols}), bb(q, DType::BF16, {rows, cols});
  DeviceArray rb(q, DType::BF16, {1, cols});
  ab.upload(a);
  bb.upload(b);
  rb.upload(b_row);
  ops::add(q, ab, bb, ab);  // a += b
  EXPECT_EQ(bits(ab.download<bf16>()), bits(reference(a, rows, b, rows, rows, cols)));
  ab.upload(a);
  ops::add(q, ab, bb, bb);  // b = a + b
  EXPECT_EQ(bits(bb.download<bf16>()), bits(reference(a, rows, b, rows, rows, cols)));
  ops::add(q, ab, rb, ab);  // a += broadcast row
  EXPECT_EQ(bits(ab.download<bf16>()), bits(reference(a, rows, b_row, 1, rows, cols)));
}

TEST(Add, BitsDoNotDependOnThreads) {
  if (provider_is_cuda()) GTEST_SKIP() << "CPU thread invariance (CUDA is held to the exact reference above)";
  const int64_t rows = 40, cols = 512;
  const auto a = operand(rows * cols, 8), b = operand(cols, 9);
  const auto one = run(cpu_queue(1), a, rows, b, 1, rows, cols);
  EXPECT_EQ(bits(run(cpu_queue(2), a, rows, b, 1, rows, cols)), bits(one));
  EXPECT_EQ(bits(run(cpu_queue(0), a, rows, b, 1, rows, cols)), bits(one));
}

}  // namespace
}  // namespace music3::optest
