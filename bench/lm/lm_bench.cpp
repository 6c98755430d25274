// bench-lm: the language model's decode step through the production arm selection
// (select_lm_arm) and the LmArm interface the AR loop drives: one step = decode() (the
// two embeddings and the position uploaded, every layer, the final norm, the two hiddens
// read back) + head() (the sliced lm_head, the logits read back), timed with the host clock
// around both, so everything is included.
//  - lm/cuda/full/device/kv{300,2000}: the device arm at the release geometry (hidden 4096,
//    36 layers, 32/8 heads of 128, ffn 12288, batch 2) from synthetic weights, after a
//    prefill of kv positions; every measured step starts at kv (the sequence is prefilled
//    again, untimed, every kStepsPerPrefill steps, so the K/V length stays within
//    kv .. kv + kStepsPerPrefill).
//  - lm/cpu/small/{device,host}/kv300: the same on a CPU queue at a small geometry (the
//    smoke run; the host arm is the reference point).
// Counters: ms_per_step, bytes_per_step (lm_bench_weights.h), TBps or GBps, of_ceiling
// (the copy ceiling measured at start in this process), floor_ms.
#include <benchmark/benchmark.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "bench/lm/lm_bench_weights.h"
#include "bench/support/bench_main.h"
#include "bench/support/guarded.h"
#include "bench/support/timed_batches.h"
#include "bench/support/uniform_bf16.h"
#include "engine/models/music3/lm/lm_ids.h"
#include "engine/models/music3/lm/lm_selector.h"

namespace {
using namespace music3;
using namespace music3::bench;
using Clock = std::chrono::steady_clock;

constexpr uint64_t kWeightSeed = 0;
constexpr int kStepsPerPrefill = 64;

struct StepFixture {
  lm::LmWeights weights;
  runtime::ArmInstruments instruments;
  std::unique_ptr<lm::LmArm> arm;
  std::vector<bf16> prompt, embeds, last, logits;
  int kv = 0, steps_since_prefill = 0;

  void prefill() {
    arm->prefill(prompt.data(), kv, kv + kStepsPerPrefill + 1, last.data(), nullptr);
    steps_since_prefill = 0;
  }
};

void register_step(const Queue& q, const std::string& dev, const std::string& geometry, runtime::ArmRequest request,
                   int kv, double ceiling) {
  const std::string arm = request == runtime::ArmRequest::Host ? "host" : "device";
  const lm::LmConfig cfg = lm_bench_geometry(geometry);
  const double bytes = step_bytes(cfg, kv + kStepsPerPrefill / 2);
  auto slot = std::make_shared<std::unique_ptr<StepFixture>>();
  const std::string name = "lm/" + dev + "/" + geometry + "/" + arm + "/kv" + std::to_string(kv);
  benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& state) {
    guarded(state, [&] {
      if (!*slot) {
        auto f = std::make_unique<StepFixture>();
        f->weights = synthetic_lm_weights(cfg, kWeightSeed);
        lm::select_lm_arm(q, request, f->weights, f->instruments, &f->arm);
        const size_t H = size_t(cfg.hidden);
        f->kv = kv;
        f->prompt = uniform_bf16(2 * size_t(kv) * H, kWeightSeed + 10);
        f->embeds = uniform_bf16(2 * H, kWeightSeed + 11);
        f->last.resize(2 * H);
        f->logits.resize(2 * size_t(lm::kSampledColumns));
        *slot = std::move(f);
      }
      StepFixture& f = **slot;
      const runtime::ArmKind want = request == runtime::ArmRequest::Host ? runtime::ArmKind::Host
                                                                          : runtime::ArmKind::Device;
      if (f.arm->kind() != want) throw std::runtime_error(name + ": the selector chose another arm");
      f.prefill();
      f.arm->decode(f.embeds.data(), f.last.data());  // warm-up: graph capture, cuBLAS handle, first touch
      f.arm->head(f.last.data(), f.logits.data());
      double total = 0;
      int64_t steps = 0;
      for (auto _ : state) {
        if (++f.steps_since_prefill >= kStepsPerPrefill) {
          state.PauseTiming();
          f.prefill();
          state.ResumeTiming();
        }
        const auto t0 = Clock::now();
        f.arm->decode(f.embeds.data(), f.last.data());
        f.arm->head(f.last.data(), f.logits.data());
        const double s = std::chrono::duration<double>(Clock::now() - t0).count();
        state.SetIterationTime(s);
        total += s;
        ++steps;
      }
      set_bandwidth_counters(state, q, total, double(steps), bytes, ceiling);
      state.counters["ms_per_step"] = total / double(steps) * 1e3;
      state.counters["bytes_per_step"] = bytes;
      state.counters["floor_ms"] = bytes / ceiling * 1e3;
    });
  })->UseManualTime();
}

}  // namespace

int main(int argc, char** argv) {
  return run_bench_main(argc, argv, "bench-lm", [](const Ceilings& c) {
    if (c.has_cuda) {
      for (int kv : {300, 2000}) register_step(c.gpu, "cuda", "full", runtime::ArmRequest::Device, kv, c.gpu_Bps);
    }
    register_step(c.cpu, "cpu", "small", runtime::ArmRequest::Device, 300, c.cpu_Bps);
    register_step(c.cpu, "cpu", "small", runtime::ArmRequest::Host, 300, c.cpu_Bps);
  });
}
