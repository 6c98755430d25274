// bench-acoustic: the acoustic stage's host arms on seeded synthetic weights (acoustic_synthetic.h), one 200-frame
// window (689 latents): the condition encoder (one encode per iteration) and the DiT (one guided step per
// iteration: velocities(), the conditional and the unconditional call), at the tiny geometry on the CPU. This
// build has no acoustic device arm: the H200 targets are for the later device arm. Counters: ms per
// call, and the DiT's FLOPs per second (2 x the MACs of every GEMM, conv and attention product, both branches).
#include <benchmark/benchmark.h>

#include <string>

#include "bench/support/bench_main.h"
#include "engine/models/music3/acoustic/acoustic_synthetic.h"
#include "engine/models/music3/acoustic/condition_encoder_host_arm.h"
#include "engine/models/music3/acoustic/dit_host_arm.h"

namespace music3::bench {
namespace {

double dit_step_flops(const acoustic::DitConfig& c, int64_t L) {
  const double S = double(L + 1), D = c.inner(), C2 = c.concat_channels(), C = c.in_channels, F = c.ff_inner;
  double macs = C2 * C2 * L + C2 * D * L + D * C * L + C * C * L;
  macs += c.layers * (4 * D * D * S + 2 * S * S * D + 3 * F * D * S);
  return 2 * 2 * macs;  // two branches, two FLOPs per MAC
}

void register_dit(const std::string& name, const Queue& q, const std::string& geometry, int64_t latents) {
  benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& state) {
    const auto w = acoustic::synthetic_dit_weights(acoustic::dit_geometry(geometry), 0);
    const auto x = acoustic::synthetic_normal(size_t(w.cfg.in_channels * latents), 1);
    const auto cond = acoustic::synthetic_normal(size_t(w.cfg.condition_dim * latents), 2);
    acoustic::DitHostArm arm(w, q.threads);
    const bf16 t = to_bf16(0.5f);
    for (auto _ : state) benchmark::DoNotOptimize(arm.velocities(x.data(), latents, t, cond.data()).conditional.data());
    state.counters["flops_per_s"] =
        benchmark::Counter(dit_step_flops(w.cfg, latents), benchmark::Counter::kIsIterationInvariantRate);
    state.SetLabel(geometry + ", " + std::to_string(latents) + " latents, both branches");
  })->Unit(benchmark::kMillisecond)->UseRealTime();
}

void register_encoder(const std::string& name, const Queue& q, const std::string& geometry, int64_t frames) {
  benchmark::RegisterBenchmark(name.c_str(), [=](benchmark::State& state) {
    const auto w = acoustic::synthetic_condition_encoder_weights(acoustic::condition_encoder_geometry(geometry), 0);
    const auto in = acoustic::synthetic_normal(size_t(w.cfg.frame_width() * frames), 3);
    acoustic::ConditionEncoderHostArm arm(w, q.threads);
    const int64_t L = w.cfg.latent_length(frames);
    for (auto _ : state) benchmark::DoNotOptimize(arm.encode(in.data(), frames, L).data());
    state.SetLabel(geometry + ", " + std::to_string(frames) + " frames -> " + std::to_string(L) + " latents");
  })->Unit(benchmark::kMillisecond)->UseRealTime();
}

}  // namespace
}  // namespace music3::bench

int main(int argc, char** argv) {
  using namespace music3::bench;
  return run_bench_main(argc, argv, "bench-acoustic", [](const Ceilings& c) {
    register_encoder("condition_encoder/host/cpu/tiny/200", c.cpu, "tiny", 200);
    register_dit("dit_guided_step/host/cpu/tiny/689", c.cpu, "tiny", 689);
  });
}
