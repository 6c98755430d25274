#include "bench/ar/ar_frame_measure.h"

#include <chrono>

#include "bench/ar/ar_bench_fixture.h"
#include "bench/support/kernel_trace.h"
#include "bench/support/observed_backend.h"
#include "bench/support/step_breakdown.h"
#include "engine/ops/registry.h"

namespace music3::bench {
namespace {

using Clock = std::chrono::steady_clock;

// The host clock between consecutive progress calls of one run, after the warm-up and without the run's last
// iteration (it never feeds back nor decodes); `at_call(call, full_next)` runs at each call, `full_next` true when
// the iteration after it is a whole one (sample, depth frame, feedback, decode).
template <class AtCall>
std::vector<double> run_frames(ArFixture& f, int frames, uint64_t seed, bool& device_frame, AtCall at_call) {
  std::vector<double> ms;
  Clock::time_point last;
  int calls = 0;
  ar::ArOptions o;
  o.max_frames = frames;
  o.ignore_eos = true;
  o.draws.seed = seed;
  o.progress = [&](int64_t done, int64_t) {
    const Clock::time_point now = Clock::now();
    if (calls >= kArFrameWarmup && done < frames)
      ms.push_back(std::chrono::duration<double, std::milli>(now - last).count());
    at_call(calls, done + 1 < frames);
    last = Clock::now();  // the observation's own reads are not the next frame's
    ++calls;
  };
  device_frame = f.stage->run(f.prompt.data(), kBenchPrompt, o).device_frame;
  return ms;
}

}  // namespace

double FrameBreakdown::ops_ms() const {
  double s = 0;
  for (const auto& r : ops) s += r.seconds;
  return frames ? s * 1e3 / frames : 0;
}

FrameBreakdown measure_ar_frame(const Queue& q, const std::string& geometry, int frames, bool kernel_trace) {
  ObservedBackend observed(*q.backend, /*graphs=*/true);
  Queue oq = q;
  oq.backend = &observed;
  tool_progress("ar-frame-breakdown", "drawing the " + geometry + " synthetic weights");
  auto f = make_ar_fixture(oq, geometry, runtime::ArmRequest::Device);
  FrameBreakdown b;
  tool_progress("ar-frame-breakdown", "production run");
  observed.set_observing(false);
  b.production_ms = median_or_zero(run_frames(*f, frames, kBenchSeed + 1, b.device_frame, [](int, bool) {}));

  tool_progress("ar-frame-breakdown", "observed run");
  observed.set_observing(true);
  OpTimeline timeline(oq, [](ops::OpId op, const void*) { return OpCost{ops::op_name(op)}; });
  std::vector<double> graphs;
  bool open = false;
  const bool timed_graphs = observed.supports_graphs();
  const auto close = [&] {
    timeline.end_step();
    if (timed_graphs) graphs.push_back(observed.take_graph_seconds() * 1e3);
    open = false;
  };
  const auto ms = run_frames(*f, frames, kBenchSeed + 2, b.device_frame, [&](int call, bool full_next) {
    if (open) close();
    if (timed_graphs && call + 1 == kArFrameWarmup) observed.discard_graph_seconds();  // the warm-up's replays
    if (call + 1 < kArFrameWarmup || !full_next) return;
    timeline.begin_step();
    open = true;
  });
  if (open) close();  // a run that ended before its last frame (it cannot: <|audio_end|> is masked)
  b.observed_ms = median_or_zero(ms);
  b.graphs_ms = median_or_zero(graphs);
  b.ops = timeline.rows();
  b.frames = timeline.steps();
  if (kernel_trace) {  // 3. a fresh fixture on the production backend, its graphs captured with CUPTI on
    f.reset();
    tool_progress("ar-frame-breakdown", "kernel trace: drawing the weights again, then a run under CUPTI");
    std::unique_ptr<ArFixture> traced;
    bool device_frame = false;
    try {  // a trace that fails costs this part only
      const auto records = trace_kernels([&] { traced = make_ar_fixture(q, geometry, runtime::ArmRequest::Device); },
                                         [&] { run_frames(*traced, frames, kBenchSeed + 3, device_frame, [](int, bool) {}); });
      const int whole = frames - kArFrameWarmup - 2;  // the last iteration neither feeds back nor decodes
      b.kernels = summarize_kernels(whole_periods(records, "lm_sample_kernel", kArFrameWarmup, whole), whole);
    } catch (const std::exception& e) {
      b.kernel_trace_error = e.what();
    }
  }
  tool_progress("ar-frame-breakdown", "");
  return b;
}

}  // namespace music3::bench
