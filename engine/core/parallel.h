// Deterministic parallel loops for the CPU providers and the host arm.
// Contract: parallel_for(n, threads, fn) calls fn(begin, end) over a partition of
// [0, n) into contiguous chunks and returns when all have run. Work is split by
// index, never by reduction, so every output is computed by exactly one call in a
// fixed order and the result does not depend on `threads` (0 = all cores).
#pragma once
#include <cstdint>
#include <functional>

namespace music3 {

int default_thread_count();
void parallel_for(int64_t n, int threads, const std::function<void(int64_t, int64_t)>& fn);

}  // namespace music3
