// embedding_gather gate: exact row copies with an offset (the model's codebook
// offsets), repeated and extreme ids, and the refusal of an id outside the table:
// the CPU provider throws naming the position; the CUDA provider, which cannot
// throw from the device, writes that row as NaN and leaves the others right.
#include <gtest/gtest.h>

#include <cmath>
#include <stdexcept>

#include "engine/ops/ops.h"
#include "gates/ops/support/numerics.h"
#include "gates/ops/support/provider_under_test.h"
#include "engine/core/device_array.h"

namespace music3::optest {
namespace {

constexpr int64_t kRows = 7 * 64, kCols = 520;

std::vector<bf16> gather(const Queue& q, const std::vector<bf16>& table, const std::vector<int32_t>& ids,
                         int64_t offset) {
  const auto m = static_cast<int64_t>(ids.size());
  DeviceArray tb(q, DType::BF16, {kRows, kCols}), ib(q, DType::I32, {m});
  DeviceArray ob(q, DType::BF16, {m, kCols});
  tb.upload(table);
  ib.upload(ids);
  ob.poison();
  ops::embedding_gather(q, tb, ib, offset, ob);
  return ob.download<bf16>();
}

std::vector<bf16> expected_row(const std::vector<bf16>& table, int64_t row) {
  return {table.begin() + row * kCols, table.begin() + (row + 1) * kCols};
}

std::vector<bf16> row_of(const std::vector<bf16>& out, int64_t m) {
  return {out.begin() + m * kCols, out.begin() + (m + 1) * kCols};
}

TEST(EmbeddingGather, CopiesTheOffsetRowsExactly) {
  const auto table = normal_bf16(kRows * kCols, 1, 1.0);
  const std::vector<int32_t> ids = {0, 63, 5, 5, 17, 0, 40};
  for (int64_t offset : {int64_t{0}, int64_t{64}, int64_t{6 * 64}}) {
    const auto out = gather(provider_queue(0), table, ids, offset);
    for (size_t m = 0; m < ids.size(); ++m)
      EXPECT_EQ(bits(row_of(out, static_cast<int64_t>(m))), bits(expected_row(table, ids[m] + offset)))
          << provider_name() << " offset " << offset << " position " << m;
  }
}

TEST(EmbeddingGather, AnIdOutsideTheTableIsRefused) {
  const auto table = normal_bf16(kRows * kCols, 2, 1.0);
  const std::vector<int32_t> ids = {3, 64, -65};  // with offset 6*64: rows 387, 448 (past the end), 319
  const int64_t offset = 6 * 64;
  if (!provider_is_cuda()) {
    try {
      gather(provider_queue(0), table, ids, offset);
      FAIL() << "expected std::out_of_range";
    } catch (const std::out_of_range& e) {
      EXPECT_NE(std::string(e.what()).find("ids[1] = 64"), std::string::npos) << e.what();
      EXPECT_NE(std::string(e.what()).find("offset 384"), std::string::npos) << e.what();
    }
    return;
  }
  const auto out = gather(provider_queue(0), table, ids, offset);
  EXPECT_EQ(bits(row_of(out, 0)), bits(expected_row(table, 3 + offset)));
  for (const bf16 v : row_of(out, 1)) EXPECT_TRUE(std::isnan(to_f32(v)));
  EXPECT_EQ(bits(row_of(out, 2)), bits(expected_row(table, -65 + offset)));
}

TEST(EmbeddingGather, BitsDoNotDependOnThreads) {
  if (provider_is_cuda()) GTEST_SKIP() << "CPU thread invariance (CUDA is held to exact copies above)";
  const auto table = normal_bf16(kRows * kCols, 3, 1.0);
  std::vector<int32_t> ids(50);
  for (size_t i = 0; i < ids.size(); ++i) ids[i] = static_cast<int32_t>((i * 37) % kRows);
  const auto one = gather(cpu_queue(1), table, ids, 0);
  EXPECT_EQ(bits(gather(cpu_queue(2), table, ids, 0)), bits(one));
}

}  // namespace
}  // namespace music3::optest
