// bench-ar: the AR frame, everything included: one iteration of run_ar() through ArStage (the production call
// site): the LM decode step of both rows, the sliced head, the CFG sampler, the depth stage's seven steps and
// the feedback embedding, host clock between consecutive iterations (each ends with the sampled codes on the
// host, so nothing is left in flight). Synthetic weights (the LM's from bench-lm, plus an embedding table; the
// depth stage's from depth_synthetic), a prompt of 300 random text ids, kFrames frames per run after the
// prefill; the first kWarmup iterations of a run (graph capture, first touch) are not counted.
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

#include "bench/lm/lm_bench_weights.h"
#include "bench/support/bench_main.h"
#include "bench/support/guarded.h"
#include "bench/support/uniform_bf16.h"
#include "engine/models/music3/ar/ar_stage.h"
#include "engine/models/music3/depth/depth_synthetic.h"
#include "engine/models/music3/lm/lm_ids.h"

namespace {
using namespace music3;
using namespace music3::bench;
using Clock = std::chrono::steady_clock;

constexpr uint64_t kSeed = 0;
constexpr int kPrompt = 300;
constexpr int kFrames = 48;
constexpr int kWarmup = 3;

// The depth stage at the LM's width: the release geometry, or the tiny one widened to the small LM.
depth::DepthConfig depth_geometry_for(const std::string& geometry, int lm_hidden) {
  if (geometry == "full") return depth::DepthConfig::full();
  depth::DepthConfig c = depth::DepthConfig::named("tiny");
  c.hidden = lm_hidden;
  return c;
}

struct FrameFixture {
  std::unique_ptr<ar::ArStage> stage;
  std::vector<int32_t> prompt;  // [2, kPrompt]
};

std::unique_ptr<FrameFixture> make_fixture(const Queue& q, const std::string& geometry, runtime::ArmRequest request) {
  const lm::LmConfig lc = lm_bench_geometry(geometry);
  lm::LmWeights lm = synthetic_lm_weights(lc, kSeed);
  lm.embed = runtime::HostTensor({lc.vocab, lc.hidden});  // the prompt's rows and c0's feedback rows are read
  // Filled in place: at the full geometry the table is 1.6 GB, so no second copy is built.
  fill_uniform_bf16(lm.embed.mutable_ptr(), size_t(lc.vocab) * size_t(lc.hidden), kSeed + 20, 0.02f);
  depth::DepthWeights depth = depth::synthetic_depth_weights(depth_geometry_for(geometry, lc.hidden), kSeed + 21);
  auto f = std::make_unique<FrameFixture>();
  f->stage = std::make_unique<ar::ArStage>(std::move(lm), std::move(depth), q, request);
  const runtime::ArmKind want = request == runtime::ArmRequest::Host ? runtime::ArmKind::Host
                                                                      : runtime::ArmKind::Device;
  if (f->stage->lm_arm_kind() != want) throw std::runtime_error("bench-ar: the selector chose another LM arm");
  f->prompt.resize(2 * kPrompt);
  for (int i = 0; i < kPrompt; ++i) f->prompt[size_t(i)] = f->prompt[size_t(kPrompt + i)] = (i * 7919) % 151000;
  return f;
}

void register_frame(const Queue& q, const std::string& dev, const std::string& geometry,
                    runtime::ArmRequest request) {
  const std::string arm = request == runtime::ArmRequest::Host ? "host" : "device";
  const std::string name = "ar/" + dev + "/" + geometry + "/" + arm + "/frame";
  auto slot = std::make_shared<std::unique_ptr<FrameFixture>>();
  benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& state) {
    guarded(state, [&] {
      if (!*slot) *slot = make_fixture(q, geometry, request);
      FrameFixture& f = **slot;
      std::vector<double> ms;
      uint64_t run = 0;
      for (auto _ : state) {
        std::vector<Clock::time_point> ends;
        ar::ArOptions options;
        options.max_frames = kFrames;
        options.draws.seed = kSeed + ++run;
        options.progress = [&](int64_t, int64_t) { ends.push_back(Clock::now()); };
        f.stage->run(f.prompt.data(), kPrompt, options);
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
