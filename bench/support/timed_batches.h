// The timing loop shared by the Google Benchmark benches of bench-ops and bench-depth.
// Contract: after one untimed warm-up call, every iteration times one call of `batch` (which issues `calls` units of
// work moving `bytes_per_unit` bytes each) with a QueueTimer and reports it as manual
// time. When the loop ends, plain-value counters (not Google Benchmark's rate flags,
// which divide by CPU time) report what the timed total gives:
//   us_per_call, bytes_per_call, TBps (CUDA queues) or GBps (other queues), and
//   of_ceiling = achieved bytes/s over the copy ceiling measured in the same process.
#pragma once
#include <benchmark/benchmark.h>

#include <functional>

#include "engine/core/queue.h"

namespace music3::bench {

void run_timed_batches(benchmark::State& state, const Queue& q, int calls, double bytes_per_unit, double ceiling_Bps,
                       const std::function<void()>& batch);

// Sets the bandwidth counters from a measured total (used by benches that time their own way).
void set_bandwidth_counters(benchmark::State& state, const Queue& q, double seconds, double units,
                            double bytes_per_unit, double ceiling_Bps);

// Bytes of the device's last-level cache (CUDA: L2 from the device; CPU: cpu0's L3 from
// /sys, else sysconf, else 32 MiB).
size_t last_level_cache_bytes(const Queue& q);

// How many copies of a `bytes`-sized operand to rotate over so that no call finds it in
// the last-level cache: enough to cover 4x that cache, at least 2, and (a bound on host
// memory where a virtual machine reports its host's cache) at most 1 GiB together
// unless 2 copies already exceed it.
int rotation_copies(const Queue& q, double bytes);

}  // namespace music3::bench
