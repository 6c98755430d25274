// The benches' synthetic weights are written on every core: runtime::fill_normal (the jump-ahead splitmix64 normal
// stream) and bench::fill_uniform_bf16 (counter-based) must give exactly the bits, and leave exactly the stream
// state, of the one sequential loop they replace, for every count (one chunk, an odd split, many chunks).
#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

#include "bench/support/uniform_bf16.h"
#include "engine/core/counter_rng.h"
#include "engine/runtime/synthetic_normal.h"

namespace music3 {
namespace {

constexpr int64_t kCounts[] = {0, 1, 7, 4099, 1 << 20};

TEST(SyntheticFill, NormalIsTheSequentialStream) {
  for (int64_t count : kCounts) {
    runtime::SyntheticNormal seq(11, 0x1234), par(11, 0x1234);
    std::vector<bf16> want(static_cast<size_t>(count)), got(static_cast<size_t>(count));
    for (auto& v : want) v = to_bf16(0.25f + 0.5f * seq.next());
    runtime::fill_normal(par, got.data(), count, 0.25f, 0.5f);
    for (int64_t i = 0; i < count; ++i) ASSERT_EQ(got[size_t(i)].bits, want[size_t(i)].bits) << count << " at " << i;
    EXPECT_EQ(par.next(), seq.next()) << "the stream continues where the sequential loop would, count " << count;
  }
}

TEST(SyntheticFill, SkipIsThatManyDraws) {
  runtime::SyntheticNormal a(3, 5), b(3, 5);
  for (int i = 0; i < 1000; ++i) a.next();
  b.skip(1000);
  EXPECT_EQ(a.next(), b.next());
}

TEST(SyntheticFill, UniformIsTheSequentialCounterStream) {
  for (int64_t count : kCounts) {
    const std::vector<bf16> got = bench::uniform_bf16(size_t(count), 9, 0.02f);
    for (int64_t i = 0; i < count; ++i) {
      const double unit = static_cast<double>(counter_u64(9, 0, uint64_t(i)) >> 11) * 0x1.0p-53;
      ASSERT_EQ(got[size_t(i)].bits, to_bf16(static_cast<float>((2 * unit - 1) * 0.02f)).bits) << count << " at " << i;
    }
  }
}

}  // namespace
}  // namespace music3
