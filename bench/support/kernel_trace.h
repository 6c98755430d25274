// The kernels a stretch of device work ran, with their start and end times as CUPTI's activity API records them
// (CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: kernels that overlap, under PDL or on several streams, keep their own
// times; graph replays included), for the breakdown tools' --kernel-trace (kernel_timeline.h summarizes them).
// Only in a build that found CUDA::cupti at configure time (MUSIC3_WITH_CUPTI); elsewhere kernel_trace_built() is
// false and trace_kernels() throws std::runtime_error saying so. CUPTI adds a little time per kernel, so a trace is
// its own part of a measurement, never the timed one.
// Thread-safety: one trace at a time per process (CUPTI's activity buffers are process-wide).
#pragma once
#include <functional>
#include <vector>

#include "bench/support/kernel_timeline.h"

namespace music3::bench {

bool kernel_trace_built();

// Enables the trace, calls `prepare` (build the arm, capture its graphs, warm up: CUPTI sees the graphs' kernels only
// when it is on before they are instantiated), drops what that ran, calls `traced`, and returns the kernels `traced`
// ran once the device has finished them.
std::vector<KernelRecord> trace_kernels(const std::function<void()>& prepare, const std::function<void()>& traced);

}  // namespace music3::bench
