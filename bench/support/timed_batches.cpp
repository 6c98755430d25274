#include "bench/support/timed_batches.h"

#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <string>

#include "bench/support/queue_timer.h"

#ifdef MUSIC3_WITH_CUDA
#include "engine/core/cuda/cuda_backend.h"
#endif

namespace music3::bench {

void set_bandwidth_counters(benchmark::State& state, const Queue& q, double seconds, double units,
                            double bytes_per_unit, double ceiling_Bps) {
  if (seconds <= 0 || units <= 0) return;
  const double Bps = bytes_per_unit * units / seconds;
  state.counters["us_per_call"] = seconds / units * 1e6;
  state.counters["bytes_per_call"] = bytes_per_unit;
  if (q.device == DeviceType::CUDA)
    state.counters["TBps"] = Bps / 1e12;
  else
    state.counters["GBps"] = Bps / 1e9;
  state.counters["of_ceiling"] = Bps / ceiling_Bps;
}

void run_timed_batches(benchmark::State& state, const Queue& q, int calls, double bytes_per_unit, double ceiling_Bps,
                       const std::function<void()>& batch) {
  batch();  // warm-up: first touch, module load and library handles stay out of the timing
  q.synchronize();
  QueueTimer timer(q);
  double total = 0;
  int64_t batches = 0;
  for (auto _ : state) {
    timer.start();
    batch();
    const double s = timer.stop_seconds();
    state.SetIterationTime(s);
    total += s;
    ++batches;
  }
  set_bandwidth_counters(state, q, total, static_cast<double>(batches) * calls, bytes_per_unit, ceiling_Bps);
}

size_t last_level_cache_bytes(const Queue& q) {
#ifdef MUSIC3_WITH_CUDA
  if (q.device == DeviceType::CUDA) {
    int l2 = 0;
    check_cuda(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, q.ordinal), "cudaDeviceGetAttribute(L2CacheSize)");
    return static_cast<size_t>(l2);
  }
#endif
  (void)q;
  // What this core sees first (a virtual machine's sysconf may report its host's cache).
  std::ifstream sys("/sys/devices/system/cpu/cpu0/cache/index3/size");
  std::string text;
  if (sys >> text && !text.empty()) {
    const size_t unit = text.back() == 'K' ? 1024 : text.back() == 'M' ? size_t(1) << 20 : 1;
    const size_t value = std::strtoull(text.c_str(), nullptr, 10);
    if (value > 0) return value * unit;
  }
  const long l3 = sysconf(_SC_LEVEL3_CACHE_SIZE);
  return l3 > 0 ? static_cast<size_t>(l3) : size_t(32) << 20;
}

int rotation_copies(const Queue& q, double bytes) {
  const double cover = 4.0 * static_cast<double>(last_level_cache_bytes(q));
  const int wanted = static_cast<int>(std::ceil(cover / bytes));
  const int bound = static_cast<int>(std::floor(static_cast<double>(size_t(1) << 30) / bytes));
  return std::max(2, std::min(wanted, bound));
}

}  // namespace music3::bench
