// The copy ceilings the benches report against, measured on the machine they run on.
// Contract: each returns bytes per second counting bytes read plus bytes written
// (2 x the buffer per copy), the median over `repeats` timed copies after one warm-up.
// cpu_copy_ceiling times parallel_host_copy (all cores, as the host arm reads);
// cuda_copy_ceiling (CUDA builds) is a device-to-device cudaMemcpyAsync timed with
// events on the queue's stream, not captured in a graph (a captured copy is slower and
// is no ceiling). Both throw naming the failing call.
#pragma once
#include <cstddef>

#include "engine/core/queue.h"

namespace music3::bench {

double cpu_copy_ceiling_Bps(size_t buffer_bytes, int repeats);
// The host copy the CPU ceiling times: 1 MiB chunks split over all cores.
void parallel_host_copy(void* dst, const void* src, size_t bytes);
#ifdef MUSIC3_WITH_CUDA
double cuda_copy_ceiling_Bps(const Queue& q, size_t buffer_bytes, int repeats);
#endif

}  // namespace music3::bench
