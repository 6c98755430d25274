// bench-ar: the AR frame, everything included: one iteration of run_ar() through ArStage (the production call
// site): the LM decode step of both rows, the sliced head, the CFG sampler, the depth stage's seven steps and
// the feedback embedding, host clock between consecutive iterations (each ends with the sampled codes on the
// host, so nothing is left in flight). Synthetic weights and prompt: ar_bench_fixture.h; kFrames frames per run
// after the prefill; the first kWarmup iterations of a run (graph capture, first touch) are not counted.
// Cases: ar/cuda/full/device/frame (the release geometry, on the GPU box) and ar/cpu/small/{device,host}/frame
// (the CPU smoke run). Counters: ms_per_frame (median iteration), mean_ms_per_frame, frames (timed).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <memory>
#include <numeric>
#include <stdexcept>
#include <string>
#include <vector>

#include "bench/ar/ar_bench_fixture.h"
#include "bench/support/bench_main.h"
#include "bench/support/guarded.h"
#include "engine/models/music3/ar/ar_stage.h"

namespace {
using namespace music3;
using namespace music3::bench;
using Clock = std::chrono::steady_clock;

constexpr int kFrames = 48;
constexpr int kWarmup = 3;

void register_frame(const Queue& q, const std::string& dev, const std::string& geometry,
                    runtime::ArmRequest request) {
  const std::string arm = request == runtime::ArmRequest::Host ? "host" : "device";
  const std::string name = "ar/" + dev + "/" + geometry + "/" + arm + "/frame";
  auto slot = std::make_shared<std::unique_ptr<ArFixture>>();
  benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& state) {
    guarded(state, [&] {
      if (!*slot) *slot = make_ar_fixture(q, geometry, request);
      ArFixture& f = **slot;
      std::vector<double> ms;
      uint64_t run = 0;
      for (auto _ : state) {
        std::vector<Clock::time_point> ends;
        ar::ArOptions options;
        options.max_frames = kFrames;
        options.draws.seed = kBenchSeed + ++run;
        options.progress = [&](int64_t, int64_t) { ends.push_back(Clock::now()); };
        f.stage->run(f.prompt.data(), kBenchPrompt, options);
        double timed = 0;
        int64_t counted = 0;
        for (size_t i = kWarmup + 1; i < ends.size(); ++i) {
          const double s = std::chrono::duration<double>(ends[i] - ends[i - 1]).count();
          ms.push_back(s * 1e3);
          timed += s;
          ++counted;
        }
        if (counted == 0) throw std::runtime_error(name + ": the run ended (EOS) before any timed frame");
        state.SetIterationTime(timed / double(counted));
      }
      std::sort(ms.begin(), ms.end());
      state.counters["ms_per_frame"] = ms[ms.size() / 2];
      state.counters["mean_ms_per_frame"] = std::accumulate(ms.begin(), ms.end(), 0.0) / double(ms.size());
      state.counters["frames"] = double(ms.size());
    });
  })->UseManualTime()->Iterations(geometry == "full" ? 4 : 2);
}

}  // namespace

int main(int argc, char** argv) {
  return run_bench_main(argc, argv, "bench-ar", [](const Ceilings& c) {
    if (c.has_cuda) register_frame(c.gpu, "cuda", "full", runtime::ArmRequest::Device);
    register_frame(c.cpu, "cpu", "small", runtime::ArmRequest::Device);
    register_frame(c.cpu, "cpu", "small", runtime::ArmRequest::Host);
  });
}
