// ar-frame-breakdown's measurement (ar_frame_breakdown.cpp has the command line): the AR stage on bench-ar's synthetic
// weights and prompt (ar_bench_fixture.h), both arms on the device, <|audio_end|> masked so every run gives `frames`
// frames, run twice on one fixture:
//  1. as production runs it: the host clock per iteration (from one progress call to the next), median over the
//     iterations after the first kArFrameWarmup (graph capture, first touch), the run's last one left out (it neither
//     feeds back nor decodes);
//  2. observed: every graph replay bracketed by events (observed_backend.h: the LM decode, its sliced head and the
//     depth frame's body) and every op issued outside a graph bracketed by events (op_timeline.h; on the CPU, where
//     nothing is captured, every op), summed per op over the same iterations;
//  3. (kernel trace, optional, CUDA) a fresh fixture's run under CUPTI (kernel_trace.h): the kernels of the frames
//     after the warm-up, one frame from one lm_sample_kernel to the next, charged per kernel (kernel_timeline.h).
// Contract: the rows are per op name in first-seen order; FrameBreakdown's per-frame figures divide by `frames`, the
// observed whole iterations. A backend without graphs leaves graphs_ms at 0. Throws what the stage throws.
// Thread-safety: one thread (the op observer is process-wide while an iteration is observed).
#pragma once
#include <optional>
#include <string>
#include <vector>

#include "bench/support/kernel_timeline.h"
#include "bench/support/op_timeline.h"
#include "engine/core/queue.h"

namespace music3::bench {

inline constexpr int kArFrameWarmup = 3;

struct FrameBreakdown {
  double production_ms = 0, observed_ms = 0, graphs_ms = 0;  // per frame: medians
  std::vector<OpRow> ops;                                     // summed over the observed frames
  int frames = 0;                                             // observed whole iterations
  bool device_frame = false;                                  // the AR loop took its device-resident frame
  std::optional<KernelTimeline> kernels;                      // part 3, when asked for
  std::string kernel_trace_error;                             // part 3 asked for and failed: why
  double ops_ms() const;                                      // the rows' sum per frame
  double rest_ms() const { return production_ms - graphs_ms - ops_ms(); }
};

FrameBreakdown measure_ar_frame(const Queue& q, const std::string& geometry, int frames, bool kernel_trace = false);

}  // namespace music3::bench
