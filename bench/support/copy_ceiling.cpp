#include "bench/support/copy_ceiling.h"

#include <algorithm>
#include <chrono>
#include <cstring>
#include <vector>

#include "bench/stats/ab_stats.h"
#include "bench/support/queue_timer.h"
#include "engine/core/device_array.h"
#include "engine/core/parallel.h"

namespace music3::bench {

void parallel_host_copy(void* dst, const void* src, size_t bytes) {
  constexpr size_t kChunk = size_t(1) << 20;
  const int64_t chunks = static_cast<int64_t>((bytes + kChunk - 1) / kChunk);
  parallel_for(chunks, 0, [&](int64_t b, int64_t e) {
    for (int64_t c = b; c < e; ++c) {
      const size_t off = static_cast<size_t>(c) * kChunk;
      std::memcpy(static_cast<char*>(dst) + off, static_cast<const char*>(src) + off, std::min(kChunk, bytes - off));
    }
  });
}

double cpu_copy_ceiling_Bps(size_t buffer_bytes, int repeats) {
  std::vector<char> src(buffer_bytes), dst(buffer_bytes);
  for (size_t i = 0; i < buffer_bytes; i += 4096) src[i] = static_cast<char>(i >> 12);  // touch every page
  parallel_host_copy(dst.data(), src.data(), buffer_bytes);
  std::vector<double> seconds;
  for (int r = 0; r < repeats; ++r) {
    const auto t0 = std::chrono::steady_clock::now();
    parallel_host_copy(dst.data(), src.data(), buffer_bytes);
    seconds.push_back(std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count());
  }
  return 2.0 * static_cast<double>(buffer_bytes) / median(seconds);
}

#ifdef MUSIC3_WITH_CUDA
double cuda_copy_ceiling_Bps(const Queue& q, size_t buffer_bytes, int repeats) {
  DeviceArray src(q, buffer_bytes), dst(q, buffer_bytes);
  q.backend->copy(dst.data(), src.data(), buffer_bytes, CopyKind::DeviceToDevice, q.stream);  // warm-up
  QueueTimer timer(q);
  std::vector<double> seconds;
  for (int r = 0; r < repeats; ++r) {
    timer.start();
    q.backend->copy(dst.data(), src.data(), buffer_bytes, CopyKind::DeviceToDevice, q.stream);
    seconds.push_back(timer.stop_seconds());
  }
  return 2.0 * static_cast<double>(buffer_bytes) / median(seconds);
}
#endif

}  // namespace music3::bench
