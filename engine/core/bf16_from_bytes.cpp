#include "engine/core/bf16_from_bytes.h"

#include <atomic>

#include "engine/core/parallel.h"

namespace music3 {
namespace {
// Below this many elements one thread does the whole array (the split costs more than it saves).
constexpr int64_t kSplitFrom = int64_t{1} << 20;

int threads_for(int64_t n) { return n < kSplitFrom ? 1 : 0; }
}  // namespace

void bf16_from_f32_bytes(const void* bytes, int64_t n, bf16* out) {
  const auto* p = static_cast<const unsigned char*>(bytes);
  parallel_for(n, threads_for(n), [&](int64_t begin, int64_t end) {
    for (int64_t i = begin; i < end; ++i) {
      float f;
      std::memcpy(&f, p + i * 4, 4);
      out[i] = to_bf16(f);
    }
  });
}

int64_t first_nonfinite(const bf16* values, int64_t n) {
  std::atomic<int64_t> first{n};  // the lowest index found so far; n: none
  parallel_for(n, threads_for(n), [&](int64_t begin, int64_t end) {
    int64_t i = begin;  // a plain scan (the common case: no bad value), then one compare-and-swap for the minimum
    while (i < end && (values[i].bits & 0x7F80u) != 0x7F80u) ++i;
    if (i == end) return;
    int64_t seen = first.load(std::memory_order_relaxed);
    while (i < seen && !first.compare_exchange_weak(seen, i, std::memory_order_relaxed)) {
    }
  });
  const int64_t found = first.load();
  return found == n ? -1 : found;
}

}  // namespace music3
