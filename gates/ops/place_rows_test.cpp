// place_rows gate: rows of src land at row0 + i * row_step, column col0 of out, bit for bit, and every other
// element of out keeps its value; out-of-range placements are refused by name.
#include <gtest/gtest.h>

#include <stdexcept>

#include "engine/core/device_array.h"
#include "engine/ops/transformer_ops.h"
#include "gates/ops/support/numerics.h"
#include "gates/ops/support/provider_under_test.h"

namespace music3::optest {
namespace {

TEST(PlaceRows, PlacesTheBlockAndLeavesTheRest) {
  struct Case {
    int64_t rows, width, out_rows, out_width, row0, step, col0;
  };
  for (const Case c : {Case{5, 3, 11, 8, 1, 2, 4}, Case{689, 128, 1378, 2304, 0, 2, 0}, Case{2, 7, 2, 14, 0, 1, 7}}) {
    const Queue q = provider_queue(0);
    const auto src = normal_bf16(size_t(c.rows * c.width), uint64_t(c.rows), 1.0);
    const auto base = normal_bf16(size_t(c.out_rows * c.out_width), uint64_t(c.rows) + 1, 1.0);
    DeviceArray sb(q, DType::BF16, {c.rows, c.width}), ob(q, DType::BF16, {c.out_rows, c.out_width});
    sb.upload(src);
    ob.upload(base);
    ops::place_rows(q, sb, ob, c.row0, c.step, c.col0);
    std::vector<bf16> want = base;
    for (int64_t i = 0; i < c.rows; ++i)
      for (int64_t j = 0; j < c.width; ++j)
        want[size_t((c.row0 + i * c.step) * c.out_width + c.col0 + j)] = src[size_t(i * c.width + j)];
    EXPECT_EQ(bits(ob.download<bf16>()), bits(want)) << provider_name() << " rows " << c.rows;
  }
}

TEST(PlaceRows, RefusesABlockPastTheOutput) {
  const Queue q = provider_queue(0);
  DeviceArray sb(q, DType::BF16, {3, 4}), ob(q, DType::BF16, {6, 8});
  EXPECT_THROW(ops::place_rows(q, sb, ob, 1, 3, 0), std::invalid_argument);  // row 7 of 6
  EXPECT_THROW(ops::place_rows(q, sb, ob, 0, 2, 5), std::invalid_argument);  // columns 5..9 of 8
  EXPECT_THROW(ops::place_rows(q, sb, ob, 0, 0, 0), std::invalid_argument);  // a zero step
}

}  // namespace
}  // namespace music3::optest
